import { describe, expect, it } from 'vitest';
import { intentOf } from './keywords.js';

describe('intentOf', () => {
  it.each([
    ['stop', { kind: 'stop' }],
    ['Cancel please', { kind: 'stop' }],
    ['STOP!', { kind: 'stop' }],
    ['new refactor the parser', { kind: 'new', text: 'refactor the parser' }],
    ['New', { kind: 'new', text: '' }],
    ['please stop the flaky test', { kind: 'request', text: 'please stop the flaky test' }],
    ['newsletter template', { kind: 'request', text: 'newsletter template' }],
    ['stop; please', { kind: 'stop' }],
  ])('%j', (text, intent) => {
    expect(intentOf(text)).toEqual(intent);
  });
});

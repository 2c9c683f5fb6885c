import { describe, expect, it } from 'vitest';
import type { StatusMessage } from '../core/ports/agent-runs.js';
import { statusText } from './format.js';

describe('statusText', () => {
  it.each<[string, string | StatusMessage | null | undefined, string | undefined]>([
    ['a string', 'Working', 'Working'],
    ['the SDK object', { message: 'Completed' }, 'Completed'],
    ['an object with a code', { message: 'No sandbox free', error_code: 'resource_unavailable', retryable: true }, 'No sandbox free (resource_unavailable)'],
    ['an object with only a code', { message: '', error_code: 'internal_error' }, '(internal_error)'],
    ['an empty object message', { message: '' }, undefined],
    ['an empty string', '', undefined],
    ['null', null, undefined],
    ['nothing', undefined, undefined],
  ])('shows %s', (_name, status, expected) => {
    expect(statusText(status)).toBe(expected);
  });
});

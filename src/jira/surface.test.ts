import { describe, expect, it } from 'vitest';
import { jiraSurface } from './surface.js';

describe('the Jira surface', () => {
  const surface = jiraSurface({ agent: { title: 'From Jira' } });

  it('is named jira: its places are issues, edited in place, without reactions, private words or threads', () => {
    expect(surface.name).toBe('jira');
    expect(surface.can).toEqual({ editInPlace: true, react: false, speakPrivately: false, thread: false });
    expect(surface.isConversation('jira:ENG-42')).toBe(true);
    expect(surface.isConversation('jira:nonsense')).toBe(false);
  });

  it('routes by the label that started the run, case-insensitive; no label: the defaults', () => {
    expect(surface.route({ source: 'jira', label: 'AGENT' })).toEqual({ title: 'From Jira' });
    expect(surface.route({ source: 'jira', label: '' })).toBeUndefined();
    expect(surface.route({ source: 'jira' })).toBeUndefined();
  });
});

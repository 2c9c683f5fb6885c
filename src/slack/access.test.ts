import { describe, expect, it } from 'vitest';
import type { StoredTrigger } from '../core/ports/store.js';
import { slackAccessPolicy } from './access.js';

const trigger = (source: string, requester?: string) => ({ source, payload: requester ? { requester: { id: requester } } : {} }) as unknown as StoredTrigger;

describe('slackAccessPolicy', () => {
  it.each([
    ['everyone when the list is empty', [], trigger('slack', 'U9'), false],
    ['a listed person', ['U1', 'U2'], trigger('slack', 'U2'), false],
    ['someone else', ['U1'], trigger('slack', 'U9'), true],
    ['a Slack trigger without a requester', ['U1'], trigger('slack'), true],
    ['other sources untouched', ['U1'], trigger('linear', 'someone'), false],
  ])('%s', (_what, allowed, candidate, denied) => {
    const reason = slackAccessPolicy(allowed).deny(candidate);
    expect(reason !== undefined).toBe(denied);
    if (denied) expect(reason).toContain('slack.allowed_users');
  });
});

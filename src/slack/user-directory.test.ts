import { describe, expect, it } from 'vitest';
import type { SlackCalls } from './slack-calls.js';
import { slackUserByEmail } from './user-directory.js';

const failing = (error: string): Pick<SlackCalls, 'users'> =>
  ({
    users: { lookupByEmail: () => Promise.reject(Object.assign(new Error(`An API error occurred: ${error}`), { data: { error } })) },
  }) as unknown as Pick<SlackCalls, 'users'>;

describe('slackUserByEmail', () => {
  it('says how to fix a Slack app without users:read.email, on the error the people code logs the hint of', async () => {
    await expect(slackUserByEmail(failing('missing_scope'), 'ada@example.com')).rejects.toMatchObject({
      hint: expect.stringContaining('add users:read.email to the Slack app’s bot scopes (manifest.yml) and reinstall it'),
    });
  });

  it('answers nobody when no confirmed email matches, and throws other failures without a hint', async () => {
    expect(await slackUserByEmail(failing('users_not_found'), 'ada@example.com')).toBeUndefined();
    await expect(slackUserByEmail(failing('ratelimited'), 'ada@example.com')).rejects.not.toHaveProperty('hint');
  });
});

import { describe, expect, it } from 'vitest';
import type { ConsoleAccess } from './console-config.js';
import { consoleSigningKey } from './signing-key.js';

const slack = { clientId: 'id', clientSecret: 'client-secret', issuer: 'https://slack.com', redirectUrl: 'https://x/cb', admins: [] };
const slackOnly: Exclude<ConsoleAccess, { mode: 'off' }> = { mode: 'slack', slack, secureCookies: true, publicUrl: 'https://x' };

/** A store's `signingKey` that keeps the first key offered, and counts the offers. */
function keptKeys() {
  let kept: string | undefined;
  const offers: string[] = [];
  return {
    offers,
    signingKey: (candidate: string) => {
      offers.push(candidate);
      kept ??= candidate;
      return Promise.resolve(kept);
    },
  };
}

describe('consoleSigningKey', () => {
  it('without AGENT_BRIDGE_SECRET: from the key kept in the database, the same for every replica', async () => {
    const sessions = keptKeys();
    const one = await consoleSigningKey(slackOnly, { serviceSecret: undefined, sessions, now: 1 });
    const two = await consoleSigningKey(slackOnly, { serviceSecret: undefined, sessions, now: 2 });
    expect(two.equals(one)).toBe(true);
    expect(sessions.offers).toHaveLength(2);
    // Another database's key, same Slack client secret: another signing key.
    const elsewhere = await consoleSigningKey(slackOnly, { serviceSecret: undefined, sessions: keptKeys(), now: 1 });
    expect(elsewhere.equals(one)).toBe(false);
  });

  it('with AGENT_BRIDGE_SECRET: from it, with nothing stored', async () => {
    const sessions = keptKeys();
    const one = await consoleSigningKey(slackOnly, { serviceSecret: 's'.repeat(32), sessions, now: 1 });
    expect((await consoleSigningKey(slackOnly, { serviceSecret: 's'.repeat(32), sessions, now: 1 })).equals(one)).toBe(true);
    expect((await consoleSigningKey(slackOnly, { serviceSecret: 't'.repeat(32), sessions, now: 1 })).equals(one)).toBe(false);
    expect(sessions.offers).toEqual([]);
  });

  it('changes with the admin token and the Slack client secret, so changing either signs everybody out', async () => {
    const base = { serviceSecret: 's'.repeat(32), sessions: keptKeys(), now: 1 };
    const token = (value: string) => consoleSigningKey({ mode: 'token', token: value, secureCookies: false, publicUrl: undefined }, base);
    expect((await token('a'.repeat(32))).equals(await token('b'.repeat(32)))).toBe(false);
    const other = await consoleSigningKey({ ...slackOnly, slack: { ...slack, clientSecret: 'rotated' } }, base);
    expect(other.equals(await consoleSigningKey(slackOnly, base))).toBe(false);
  });

  it('with the one-time link alone: random per process, nothing stored', async () => {
    const sessions = keptKeys();
    const access: Exclude<ConsoleAccess, { mode: 'off' }> = { mode: 'one-time link', secureCookies: false, publicUrl: undefined };
    const one = await consoleSigningKey(access, { serviceSecret: undefined, sessions, now: 1 });
    expect((await consoleSigningKey(access, { serviceSecret: undefined, sessions, now: 1 })).equals(one)).toBe(false);
    expect(sessions.offers).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { consoleAccess, type ConsoleAccess } from './console-config.js';
import { consoleSigningKey } from './signing-key.js';

const REAL_API = { AGENT_API_BASE_URL: 'https://api.example.com/api/v1', AGENT_API_KEY: 'k', PUBLIC_URL: 'https://x' };
const SLACK = { SLACK_CLIENT_ID: 'id', SLACK_CLIENT_SECRET: 'client-secret' };
const TOKEN = 't'.repeat(32);

/** The console's access for these variables, as the service decides it. */
function accessOf(env: Record<string, string>): Exclude<ConsoleAccess, { mode: 'off' }> {
  const access = consoleAccess(loadConfig({ env, cwd: '/nonexistent-agent-bridge-test' }));
  if (access.mode === 'off') throw new Error(`the console should be on: ${access.why}`);
  return access;
}

const slackOnly = accessOf({ ...REAL_API, ...SLACK });

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
    const token = (value: string) => consoleSigningKey(accessOf({ ...REAL_API, CONSOLE_ADMIN_TOKEN: value }), base);
    expect((await token('a'.repeat(32))).equals(await token('b'.repeat(32)))).toBe(false);
    const other = await consoleSigningKey(accessOf({ ...REAL_API, ...SLACK, SLACK_CLIENT_SECRET: 'rotated' }), base);
    expect(other.equals(await consoleSigningKey(slackOnly, base))).toBe(false);
  });

  it.each([
    // Derived by the release before sign-in providers, from the same variables: sessions signed then still open.
    ['Sign in with Slack alone', { ...REAL_API, ...SLACK }, '1D7d3bNOX_ZyXKDUhXf811K-lBtTKs0UNSyDvaZoKdI'],
    ['the admin token and Sign in with Slack', { ...REAL_API, ...SLACK, CONSOLE_ADMIN_TOKEN: TOKEN }, 'Di_Umi4RMFUMEBujwSEXwVokcoyLwVPe8MwlrstsR4E'],
    ['the admin token alone', { ...REAL_API, CONSOLE_ADMIN_TOKEN: TOKEN }, 'Tjz7w2NgMkUoHnjOAH8_4hURoE9_nieBwUsly8Fye7s'],
    ['the one-time link and Sign in with Slack', { PUBLIC_URL: 'https://x', ...SLACK }, '1D7d3bNOX_ZyXKDUhXf811K-lBtTKs0UNSyDvaZoKdI'],
  ])('is the key the same configuration had before (%s), so an upgrade signs nobody out', async (_name, env: Record<string, string>, key) => {
    const derived = await consoleSigningKey(accessOf(env), { serviceSecret: 's'.repeat(32), sessions: keptKeys(), now: 1 });
    expect(derived.toString('base64url')).toBe(key);
  });

  it('with the one-time link alone: random per process, nothing stored', async () => {
    const sessions = keptKeys();
    const access = accessOf({});
    expect(access.mode).toBe('one-time link');
    const one = await consoleSigningKey(access, { serviceSecret: undefined, sessions, now: 1 });
    expect((await consoleSigningKey(access, { serviceSecret: undefined, sessions, now: 1 })).equals(one)).toBe(false);
    expect(sessions.offers).toEqual([]);
  });
});

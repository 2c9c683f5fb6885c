import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { ConfigError } from '../config/problems.js';
import { consoleAccess } from './console-config.js';

const TOKEN = 'c'.repeat(32);
const load = (env: Record<string, string>) => loadConfig({ env, cwd: '/nonexistent-agent-bridge-test' });

function problem(env: Record<string, string>) {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.where}: ${p.message}`).join('\n');
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('console configuration', () => {
  it.each([
    ['a short token', { CONSOLE_ADMIN_TOKEN: 'short-token' }, /^CONSOLE_ADMIN_TOKEN: is too short \(11 characters\): it must have at least 32$/],
    ['a token with a space', { CONSOLE_ADMIN_TOKEN: `${TOKEN} x` }, /^CONSOLE_ADMIN_TOKEN: contains a space/],
    ['a PUBLIC_URL that is not a URL', { PUBLIC_URL: 'agent-bridge.example.com' }, /^PUBLIC_URL: /],
  ])('refuses %s, naming the variable and never its value', (_name, env: Record<string, string>, expected) => {
    const text = problem(env);
    expect(text).toMatch(expected);
    const token = env['CONSOLE_ADMIN_TOKEN'];
    if (token) expect(text).not.toContain(token);
  });

  it.each([
    ['a token and the real run API', { CONSOLE_ADMIN_TOKEN: TOKEN, AGENT_API_BASE_URL: 'https://api.example.com/api/v1', AGENT_API_KEY: 'k' }, 'token', false],
    ['the built-in emulator and no token', {}, 'one-time link', false],
    ['the real run API and no token', { AGENT_API_BASE_URL: 'https://api.example.com/api/v1', AGENT_API_KEY: 'k' }, 'off', false],
    ['a token behind https', { CONSOLE_ADMIN_TOKEN: TOKEN, PUBLIC_URL: 'https://bridge.example.com/' }, 'token', true],
  ])('with %s the console is %s', (_name, env, mode, secure) => {
    const access = consoleAccess(load(env));
    expect(access.mode).toBe(mode);
    if (access.mode !== 'off') expect(access.secureCookies).toBe(secure);
  });

  it('keeps PUBLIC_URL without its trailing slash', () => {
    expect(load({ PUBLIC_URL: 'https://bridge.example.com/' }).http.publicUrl).toBe('https://bridge.example.com');
  });
});

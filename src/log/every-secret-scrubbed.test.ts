import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/config/helpers.js';
import { loadConfig, SECRET_VARIABLES, secretValues } from '../config/index.js';
import { SURFACE_MODULES } from '../surface-list.js';
import { createLogger } from './create-logger.js';

/*
 * The service's logger is built from `secretValues(config)` (`agent-bridge serve`): a secret variable
 * it misses reaches the log the first time a platform quotes it back. Every variable the config
 * declares secret is set here to a value of its own, so one added later is checked without a word
 * written here; one whose value needs a shape of its own, or a companion variable, fails to load
 * until it gets them below.
 */

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString().trim();

/** Variables whose secret is held in another form than it is set: the value to set, and the secret as the service holds it. */
const SHAPED: Partial<Record<string, { value: string; held: string }>> = {
  DATABASE_URL: { value: 'postgres://bridge:s3cret-DATABASE_URL-0123456789abcdef@db.example:5432/bridge', held: 's3cret-DATABASE_URL-0123456789abcdef' },
  // Set with `\n` escapes, as an env file holds it; held with real line breaks, which a JSON line escapes.
  GITHUB_PRIVATE_KEY: { value: PEM.replace(/\n/g, '\\n'), held: PEM },
};

/** Variables that must be set beside the secret ones for the config to load (none of them secret). */
const COMPANIONS = {
  AGENT_API_BASE_URL: 'https://agents.example/api/v1',
  SLACK_CLIENT_ID: '123.456',
  PUBLIC_URL: 'https://bridge.example',
  GITHUB_APP_ID: '4242',
  JIRA_BASE_URL: 'https://acme.atlassian.net',
  JIRA_EMAIL: 'bot@acme.example',
  TEAMS_CLIENT_ID: '8d4f2c1a-6e3b-4a7d-b9c2-1e5f7a3d9b60',
  TEAMS_TENANT_ID: '5c1a7e0d-2b9f-4e8a-9d3c-7f6b1a2e4c90',
};

const secretOf = (name: string) => SHAPED[name] ?? { value: `s3cret-${name}-0123456789abcdef0123456789`, held: `s3cret-${name}-0123456789abcdef0123456789` };

describe('every secret variable is scrubbed from the log', () => {
  it('the config declares secret variables, among them some of every registered surface', () => {
    const without = SURFACE_MODULES.filter((surface) => !SECRET_VARIABLES.some((name) => name.startsWith(`${surface.name.toUpperCase()}_`)));
    expect(without.map((surface) => surface.name)).toEqual([]);
  });

  it.each([...SECRET_VARIABLES])('%s: its value never reaches a line, in the message, a field or an error', (name) => {
    const env = { ...COMPANIONS, ...Object.fromEntries(SECRET_VARIABLES.map((variable) => [variable, secretOf(variable).value])) };
    const config = loadConfig({ env, cwd: tempDir() });
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', secrets: secretValues(config), destination: { write: (line: string) => void lines.push(line) } });

    const { value, held } = secretOf(name);
    // The secret alone, and the whole value where it carries the secret as it is (a URL quoting its password).
    for (const text of [held, ...(value.includes(held) && value !== held ? [value] : [])]) {
      logger.warn({ err: { message: `refused with ${text}` }, response: { body: text } }, `the platform said: ${text}.`);
    }

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain(held);
      expect(line).not.toContain(JSON.stringify(held).slice(1, -1));
      expect(JSON.parse(line)).toMatchObject({
        msg: expect.stringContaining('[redacted]') as unknown,
        err: { message: expect.stringContaining('[redacted]') as unknown },
      });
    }
  });
});

import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlackApi, type FakeSlackApi } from '../../test/fakes/slack-api.js';
import { secretScrubber } from '../core/scrub.js';
import { createLogger } from '../log/create-logger.js';
import { boltLogger } from './bolt-logger.js';
import { webClientOptions } from './slack-app.js';
import { slackDisplayName, slackUserByEmail } from './user-directory.js';

const TOKEN = 'xoxb-0000-4444-bolt-logger';
const EMAIL = 'ada.lovelace@example.com';
let slack: FakeSlackApi;

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: TOKEN });
  slack.setUser('U0ADA00001', { display_name: 'ada', email: EMAIL });
});
afterAll(() => slack.close());

describe('the Slack Web API logged at LOG_LEVEL=debug', () => {
  it('logs users.lookupByEmail and users.info bodies without the email address (docs/people.md) or the token', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', secrets: [], destination: { write: (line: string) => void lines.push(line) } });
    const client = new WebClient(TOKEN, webClientOptions(slack.url, boltLogger(logger, secretScrubber([TOKEN]))));

    expect(await slackUserByEmail(client, EMAIL)).toBe('U0ADA00001');
    expect(await slackDisplayName(client, 'U0ADA00001')).toBe('ada');

    // The bodies were logged (the request's arguments and the whole answer, profile included) ...
    const log = lines.join('');
    expect(log).toContain('users.lookupByEmail');
    expect(log).toMatch(/http request result: .*\\"display_name\\":\\"ada\\"/);
    expect(log).toContain('[email]');
    // ... with neither the address, in any spelling, nor the token.
    expect(log.toLowerCase()).not.toContain('example.com');
    expect(log).not.toContain(TOKEN);
  });
});

describe('the Slack Web API logged above debug', () => {
  it('spends nothing on the debug lines the client builds for every call: not scrubbed, not written', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', secrets: [], destination: { write: (line: string) => void lines.push(line) } });
    let scrubbed = 0;
    const client = new WebClient(
      TOKEN,
      webClientOptions(
        slack.url,
        boltLogger(logger, (text) => {
          scrubbed++;
          return text;
        }),
      ),
    );

    expect(await slackDisplayName(client, 'U0ADA00001')).toBe('ada');
    expect(scrubbed).toBe(0);
    expect(lines).toEqual([]);
  });
});

describe('the Slack Web API lines', () => {
  it('name the component of the logger they were given, once (not a second "component" of their own)', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', secrets: [], destination: { write: (line: string) => void lines.push(line) } });
    const client = new WebClient(TOKEN, webClientOptions(slack.url, boltLogger(logger.child({ component: 'slack-web-api' }))));

    expect(await slackDisplayName(client, 'U0ADA00001')).toBe('ada');
    expect(lines.length).toBeGreaterThan(0);
    const components = lines.map((line) => [...line.matchAll(/"component":"([^"]*)"/g)].map((match) => match[1]));
    expect(new Set(components.map((names) => names.join(',')))).toEqual(new Set(['slack-web-api']));
  });
});

import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SURFACE_MODULES } from '../surface-list.js';
import { createLogger } from './create-logger.js';

function captured(secrets: string[] = [], credentialShapes: readonly RegExp[] = []) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    secrets,
    credentialShapes,
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe('createLogger', () => {
  it('names the replica (hostname and pid) on every line, children and every level included', () => {
    const { logger, lines } = captured();
    logger.debug('a');
    logger.info({ url: 'http://127.0.0.1:1' }, 'b');
    logger.child({ component: 'tracker' }).warn('c');
    logger
      .child({ component: 'outbox' })
      .child({ worker: 3 })
      .error({ err: new Error('boom') }, 'd');

    expect(lines.map((line) => line['msg'])).toEqual(['a', 'b', 'c', 'd']);
    for (const line of lines) expect(line).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(lines[2]).toMatchObject({ component: 'tracker' });
  });

  it('still keeps the configured secrets out of the line that carries the replica', () => {
    const secret = 'xoxb-secret-token-0123456789';
    const { logger, lines } = captured([secret]);
    logger.info({ botToken: secret, note: `token ${secret}` }, `said ${secret}`);
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines[0]).toMatchObject({ pid: process.pid, hostname: hostname(), botToken: '[redacted]', msg: 'said [redacted]' });
  });

  it('keeps credentials minted at run time out by their shape: a JWT, GitHub and Slack tokens, whatever field or text quotes them', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiI0MjQyIiwiaWF0IjoxfQ.c2lnbmF0dXJlLW9mLXRoZS1hcHA';
    const installation = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';
    const { logger, lines } = captured(
      [],
      SURFACE_MODULES.flatMap((module) => module.credentialShapes ?? []),
    );
    logger.warn({ err: { message: `Bad credentials: bearer ${jwt}`, response: { data: { token: installation } } } }, `refused token ${installation}`);
    logger.info({ note: 'xoxb-7431-5512-SEKRIT-token', plain: 'eyJ alone is no token; ghs_short neither' }, 'ok');
    const text = JSON.stringify(lines);
    for (const credential of [jwt, installation, 'xoxb-7431-5512-SEKRIT-token', jwt.split('.')[1]!]) expect(text).not.toContain(credential);
    expect(lines[0]).toMatchObject({ msg: 'refused token [redacted]', err: { message: 'Bad credentials: bearer [redacted]' } });
    expect(lines[1]).toMatchObject({ plain: 'eyJ alone is no token; ghs_short neither' });
  });

  it('keeps out a configured secret that a JSON line escapes: line breaks, quotes and backslashes', () => {
    const key = '-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END KEY-----';
    const quoted = 'webhook"secret\\with-escapes';
    const { logger, lines } = captured([key, quoted]);
    logger.error({ err: { message: `bad key ${key}` } }, `secret ${quoted}`);
    expect(lines[0]).toMatchObject({ msg: 'secret [redacted]', err: { message: 'bad key [redacted]' } });
  });
});

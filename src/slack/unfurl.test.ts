import { describe, expect, it } from 'vitest';
import { inDomains, mayUnfurl, unfurlRow } from './unfurl.js';

const DOMAINS = ['app.example.dev'];
const event = (fields: Record<string, unknown> = {}) => ({
  channel: 'C1',
  user: 'U1',
  message_ts: '1.2',
  links: [{ domain: 'app.example.dev', url: 'https://app.example.dev/session/abc' }],
  ...fields,
});

describe('inDomains', () => {
  it.each([
    ['app.example.dev', true],
    ['APP.example.dev', true],
    ['eu.app.example.dev', true],
    ['example.dev', false],
    ['evilapp.example.dev', false],
    ['app.example.dev.evil.com', false],
  ])('%s → %s', (host, expected) => {
    expect(inDomains(host, DOMAINS)).toBe(expected);
  });
});

describe('unfurlRow', () => {
  it.each([
    ['a link on a listed domain', event(), ['https://app.example.dev/session/abc']],
    [
      'only the listed links, each once',
      event({ links: [{ domain: 'other.dev', url: 'https://other.dev/x' }, ...event().links, ...event().links] }),
      ['https://app.example.dev/session/abc'],
    ],
    ['no listed link', event({ links: [{ domain: 'other.dev', url: 'https://other.dev/x' }] }), undefined],
    ['links that are not an array', event({ links: 'https://app.example.dev/session/abc' }), undefined],
    ['a link without url', event({ links: [{ domain: 'app.example.dev' }] }), undefined],
    ['a link that is null', event({ links: [null] }), undefined],
    ['no channel', event({ channel: 7 }), undefined],
    ['no message ts', event({ message_ts: undefined }), undefined],
  ])('%s', (_name, input, links) => {
    const row = unfurlRow(input, DOMAINS);
    expect((row?.payload as { links?: string[] } | undefined)?.links).toEqual(links);
  });

  it('previews nothing while unfurl_domains is empty', () => {
    expect(unfurlRow(event(), [])).toBeUndefined();
  });

  it('keeps who pasted the links, for the check of where the run may be seen', () => {
    expect(unfurlRow(event(), DOMAINS)?.payload).toMatchObject({ channel: 'C1', user: 'U1' });
    expect(unfurlRow(event({ user: 7 }), DOMAINS)?.payload).not.toHaveProperty('user');
  });

  it('keys the row by the message, or by the composer’s unfurl id', () => {
    expect(unfurlRow(event(), DOMAINS)).toMatchObject({ key: 'unfurl:C1:1.2', destination: 'slack:unfurl:C1' });
    expect(unfurlRow(event({ unfurl_id: 'Uf1', source: 'composer' }), DOMAINS)).toMatchObject({
      key: 'unfurl:Uf1',
      payload: { unfurlId: 'Uf1', source: 'composer' },
    });
  });

  it('looks up at most five links of one message', () => {
    const links = Array.from({ length: 9 }, (_, index) => ({ domain: 'app.example.dev', url: `https://app.example.dev/session/${index}` }));
    expect((unfurlRow(event({ links }), DOMAINS)?.payload as { links: string[] }).links).toHaveLength(5);
  });
});

describe('mayUnfurl (issue 26: a preview only where the run may be seen)', () => {
  const channelRun = { anchor: 'slack:C0WEB:1700000000.000100', destinations: ['slack:C0WEB:1700000000.000100'] };
  const dmRun = { anchor: 'slack:D0ADA:1700000000.000100', destinations: ['slack:D0ADA:1700000000.000100', 'slack:home:U0ADA'] };
  const linearRun = { anchor: 'linear:issue-1', destinations: ['linear:issue-1', 'slack:C0OPS:1700000000.000200'], personalKeyOwner: 'U0ADA' };
  const ada = { platform: 'slack', id: 'U0ADA' };
  it.each([
    ['in a channel the run reports in, by anyone', { channel: 'C0WEB', user: 'U0BOB' }, channelRun, ada, true],
    ['in another channel, by someone else', { channel: 'C0OTHER', user: 'U0BOB' }, channelRun, ada, false],
    ['in another channel, by its starter', { channel: 'C0OTHER', user: 'U0ADA' }, channelRun, ada, true],
    ['a direct message’s run in a channel, by someone else', { channel: 'C0WEB', user: 'U0BOB' }, dmRun, ada, false],
    ['a direct message’s run in a channel, by its starter', { channel: 'C0WEB', user: 'U0ADA' }, dmRun, ada, true],
    ['in the run’s own direct message, by someone else', { channel: 'D0ADA', user: 'U0BOB' }, dmRun, ada, false],
    ['in a channel named only by a destination', { channel: 'C0OPS', user: 'U0BOB' }, linearRun, undefined, true],
    ['anywhere, by the person whose key created it', { channel: 'C0OTHER', user: 'U0ADA' }, linearRun, { platform: 'linear', id: 'lin-1' }, true],
    ['anywhere, by a Linear requester’s namesake id', { channel: 'C0OTHER', user: 'lin-1' }, linearRun, { platform: 'linear', id: 'lin-1' }, false],
    ['a row owed without its paster, outside the run’s places', { channel: 'C0OTHER' }, channelRun, ada, false],
    ['a composer draft (Slack’s channel COMPOSER), by someone else', { channel: 'COMPOSER', user: 'U0BOB' }, channelRun, ada, false],
  ])('%s → %s', (_name, pasted, run, starter, expected) => {
    expect(mayUnfurl(pasted, run, starter)).toBe(expected);
  });
});

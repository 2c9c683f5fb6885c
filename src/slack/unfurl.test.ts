import { describe, expect, it } from 'vitest';
import { inDomains, unfurlRow } from './unfurl.js';

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

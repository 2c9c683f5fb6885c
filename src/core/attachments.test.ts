import { describe, expect, it } from 'vitest';
import { attachmentLines, formatSize, safeFileLink, withAttachments } from './attachments.js';

describe('safeFileLink', () => {
  it.each([
    ['a Slack permalink', 'https://acme.slack.com/files/U1/F1/report.pdf', 'https://acme.slack.com/files/U1/F1/report.pdf'],
    ['plain http', 'http://acme.slack.com/files/U1/F1/x', undefined],
    ['a user in the URL', 'https://user:pw@example.com/x', undefined],
    ['a token parameter', 'https://files.example.com/x?token=abc', undefined],
    ['an S3 signature', 'https://s3.amazonaws.com/b/x?X-Amz-Signature=abc', undefined],
    ['a harmless parameter', 'https://linear.app/acme/issue/ENG-1?tab=files', 'https://linear.app/acme/issue/ENG-1?tab=files'],
    ['not a URL', 'report.pdf', undefined],
    ['nothing', undefined, undefined],
  ])('%s', (_name, url, expected) => {
    expect(safeFileLink(url)).toBe(expected);
  });
});

describe('attachmentLines', () => {
  it('lists name, type, size and link, one line each', () => {
    expect(
      attachmentLines([
        { name: 'report.pdf', type: 'application/pdf', size: 12_600, link: 'https://acme.slack.com/files/U1/F1/report.pdf' },
        { name: 'evil\n> name', size: 10, link: 'https://x.example/f?sig=1' },
      ]),
    ).toBe(
      [
        'Attached files (listed only: open a link with your own access; the contents are not included):',
        '- report.pdf (application/pdf, 12.3 KB): https://acme.slack.com/files/U1/F1/report.pdf',
        '- evil > name (10 B)',
      ].join('\n'),
    );
  });

  it('says nothing without files and appends after the text otherwise', () => {
    expect(attachmentLines([])).toBe('');
    expect(withAttachments('fix it', undefined)).toBe('fix it');
    expect(withAttachments('fix it', [{ name: 'a.txt' }])).toBe(
      'fix it\n\nAttached files (listed only: open a link with your own access; the contents are not included):\n- a.txt',
    );
  });

  it.each([
    [512, '512 B'],
    [2048, '2.0 KB'],
    [5 * 1024 * 1024, '5.0 MB'],
  ])('formats %i bytes as %s', (bytes, shown) => {
    expect(formatSize(bytes)).toBe(shown);
  });
});

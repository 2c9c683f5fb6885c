import { describe, expect, it } from 'vitest';
import { linearFiles } from './files.js';

describe('linearFiles', () => {
  it.each([
    ['no uploads', 'please look again', undefined],
    [
      'a file link',
      'see [report.pdf](https://uploads.linear.app/o1/f1/report.pdf)',
      [{ name: 'report.pdf', type: 'application/pdf', link: 'https://uploads.linear.app/o1/f1/report.pdf' }],
    ],
    ['an image', '![screen.png](https://uploads.linear.app/o1/f2/x)', [{ name: 'screen.png', type: 'image/png', link: 'https://uploads.linear.app/o1/f2/x' }]],
    [
      'an unnamed upload',
      '[](https://uploads.linear.app/o1/f3/trace.log)',
      [{ name: 'trace.log', type: 'text/plain', link: 'https://uploads.linear.app/o1/f3/trace.log' }],
    ],
    ['a link elsewhere', '[docs](https://example.com/a.pdf)', undefined],
    [
      'the same upload twice',
      '[a.txt](https://uploads.linear.app/o/a) and [a.txt](https://uploads.linear.app/o/a)',
      [{ name: 'a.txt', type: 'text/plain', link: 'https://uploads.linear.app/o/a' }],
    ],
  ])('%s', (_name, body, expected) => {
    expect(linearFiles(body)).toEqual(expected);
  });
});

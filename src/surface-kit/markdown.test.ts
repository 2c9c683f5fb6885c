import { describe, expect, it } from 'vitest';
import { inertKeepingCode, inertMarkdown, markdownCode, markdownLink, markdownParts, markdownUrl } from './markdown.js';

/** CommonMark's reading of backslash escapes: `\` before ASCII punctuation stands for that character. */
const unescape = (markdown: string) => markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1');

describe('inertMarkdown', () => {
  it.each([
    ['Fix the flaky login test', 'Fix the flaky login test'],
    ['![x](https://evil/pixel)', '\\!\\[x\\]\\(https\\://evil/pixel\\)'],
    ['[click](https://evil)', '\\[click\\]\\(https\\://evil\\)'],
    ['**bold** _it_ ~~gone~~ `code`', '\\*\\*bold\\*\\* \\_it\\_ \\~\\~gone\\~\\~ \\`code\\`'],
    ['<img src=x onerror=y>', '\\<img src=x onerror=y\\>'],
    ['a | b', 'a \\| b'],
    ['back\\slash', 'back\\\\slash'],
    ['AT&T &amp; co', 'AT\\&T \\&amp; co'],
    ['see www.evil.example', 'see www\\.evil.example'],
    ['# heading', '\\# heading'],
    ['> quoted', '\\> quoted'],
    ['- item', '\\- item'],
    ['+ item', '\\+ item'],
    ['  * item', '  \\* item'],
    ['1. item', '1\\. item'],
    ['12) item', '12\\) item'],
    ['===', '\\==='],
    ['---', '\\---'],
    ['fine\n# two\n- three\n4. four', 'fine\n\\# two\n\\- three\n4\\. four'],
    ['a - b + c = 3. d', 'a - b + c = 3. d'],
    ['[ref]: https://evil', '\\[ref\\]: https\\://evil'],
  ])('%j → %j', (text, markdown) => {
    expect(inertMarkdown(text)).toBe(markdown);
  });

  it.each(['![x](https://evil/pixel) and [click](https://evil)', 'line one\n> two\n1. three\n---\n<b>four</b> `five` \\six', '[a]: <https://evil> "title"'])(
    'reads back as the text it was made from: %j',
    (text) => {
      expect(unescape(inertMarkdown(text))).toBe(text);
    },
  );
});

describe('inertKeepingCode', () => {
  it.each([
    ['write `@agent new <what to do>` to start one.', 'write `@agent new <what to do>` to start one.'],
    ['Stopping the run (requested by ![x](https://evil/pixel)).', 'Stopping the run \\(requested by \\!\\[x\\]\\(https\\://evil/pixel\\)\\).'],
    // A name with a backtick pairs with ours: the pair is code, the rest stays escaped.
    ['run `a` by x` ![p](https://evil/pixel) `y', 'run `a` by x` ![p](https://evil/pixel) `y'],
    ['by x`` ![p](https://evil/pixel)', 'by x\\`\\` \\!\\[p\\]\\(https\\://evil/pixel\\)'],
    ['an open ` backtick [l](https://evil)', 'an open \\` backtick \\[l\\]\\(https\\://evil\\)'],
  ])('%j → %j', (text, markdown) => {
    expect(inertKeepingCode(text)).toBe(markdown);
  });
});

describe('markdownCode', () => {
  it.each([
    ['run_1', '`run_1`'],
    ['a`b', '``a`b``'],
    ['``x``', '``` ``x`` ```'],
    ['`', '`` ` ``'],
    ['two\nlines', '`two lines`'],
  ])('%j → %j', (text, code) => {
    expect(markdownCode(text)).toBe(code);
  });
});

describe('markdownUrl and markdownLink', () => {
  it.each([
    ['https://agent.example/sessions/1', '<https://agent.example/sessions/1>', '[Open session](<https://agent.example/sessions/1>)'],
    ['http://127.0.0.1:8080/s?a=1&b=%282%29#top', '<http://127.0.0.1:8080/s?a=1&b=%282%29#top>', '[Open session](<http://127.0.0.1:8080/s?a=1&b=%282%29#top>)'],
    ['https://x/a_(b)', 'https\\://x/a\\_\\(b\\)', undefined],
    ['https://x/a>![p](https://evil/pixel)', 'https\\://x/a\\>\\!\\[p\\]\\(https\\://evil/pixel\\)', undefined],
    ['https://x/a b', 'https\\://x/a b', undefined],
    ['javascript:alert(1)', 'javascript:alert\\(1\\)', undefined],
    ['https://x/\\', 'https\\://x/\\\\', undefined],
  ])('%j', (url, autolink, link) => {
    expect(markdownUrl(url)).toBe(autolink);
    expect(markdownLink('Open session', url)).toBe(link);
  });
});

describe('markdownParts', () => {
  const PR = 'https://github.com/Codertocat/Hello-World/pull/2';

  it('links a labelled link on its label, a bare one as an autolink; the words around them inert', () => {
    expect(markdownParts(['The pull request ', { url: PR, label: 'Codertocat/Hello-World#2' }, ' was merged by a_b (see https://x).'])).toBe(
      `The pull request [Codertocat/Hello-World#2](<${PR}>) was merged by a\\_b \\(see https\\://x\\).`,
    );
    expect(markdownParts(['Session: ', { url: PR }])).toBe(`Session: <${PR}>`);
  });

  it('a label is words, whatever it holds', () => {
    expect(markdownParts([{ url: PR, label: 'a comment on [x](https://evil) `y` <b>*z*</b>\nline' }])).toBe(
      `[a comment on \\[x\\](https\\://evil) \\\`y\\\` \\<b\\>\\*z\\*\\</b\\> line](<${PR}>)`,
    );
  });

  it('a URL that could break out of the link is shown as inert words', () => {
    expect(markdownParts([{ url: 'https://x/a>)![p](https://evil/pixel)', label: 'the check' }])).toBe(
      'the check \\(https\\://x/a\\>\\)\\!\\[p\\]\\(https\\://evil/pixel\\)\\)',
    );
    expect(markdownParts([{ url: 'javascript:alert(1)' }])).toBe('javascript:alert\\(1\\)');
  });
});

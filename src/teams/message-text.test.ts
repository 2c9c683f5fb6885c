import { describe, expect, it } from 'vitest';
import { messageText } from './message-text.js';

const BOT = ['agent-bridge'];

describe('messageText', () => {
  it.each([
    ['the bot’s mention removed', '<at>agent-bridge</at> fix the build', 'fix the build'],
    ['the bot’s mention anywhere, with spaces inside the tag', 'please <at> agent-bridge </at>fix it', 'please fix it'],
    ['the bot’s mention alone', '<at>agent-bridge</at>', ''],
    ['every mention of the bot', '<at>agent-bridge</at> ask <at>agent-bridge</at>', 'ask'],
    ['another person’s mention as @Name', '<at>agent-bridge</at> ask <at>Grace Hopper</at> first', 'ask @Grace Hopper first'],
    ['a mention of another name of the bot kept', '<at>agent-bridge-old</at> hi', '@agent-bridge-old hi'],
    ['a mention that never closes left as written', '<at>agent-bridge fix', '<at>agent-bridge fix'],
    ['entities decoded', 'a &lt; b &amp;&amp; c &gt; d, &quot;quoted&quot; and &#39;single&#39;', 'a < b && c > d, "quoted" and \'single\''],
    ['entities decoded once, not twice', 'write &amp;lt;p&amp;gt; literally', 'write &lt;p&gt; literally'],
    ['an escaped tag stays text, not a tag', '&lt;p&gt;kept&lt;/p&gt;', '<p>kept</p>'],
    ['an escaped mention is not a mention', '&lt;at&gt;agent-bridge&lt;/at&gt; hi', '<at>agent-bridge</at> hi'],
    ['a no-break space as a space', 'fix&nbsp;&nbsp;it', 'fix it'],
    ['entities it does not know left alone', 'x &copy; &#169; &unknown;', 'x &copy; &#169; &unknown;'],
    ['<p> tags as spaces', '<p>fix the build</p><p>and the tests</p>', 'fix the build and the tests'],
    ['div, span and br tags, any case, self-closing', '<DIV>one<br/>two<br >three</div><span>four</Span>', 'one two three four'],
    ['other tags left as written', '<b>bold</b> <img src=x>', '<b>bold</b> <img src=x>'],
    ['spaces and tabs squeezed, the ends trimmed', '  \t fix \t\t the   build \t ', 'fix the build'],
    ['line breaks kept', 'first line\nsecond  line', 'first line\nsecond line'],
  ])('%s', (_what, text, expected) => {
    expect(messageText(text, BOT)).toBe(expected);
  });

  it('removes the mention of each of the bot’s names, and of none when it has none', () => {
    expect(messageText('<at>Agent Bridge</at> <at>agent-bridge</at> go', ['agent-bridge', 'Agent Bridge'])).toBe('go');
    expect(messageText('<at>agent-bridge</at> go', [])).toBe('@agent-bridge go');
  });

  it('a mention over 200 characters is not read as one', () => {
    const long = 'x'.repeat(201);
    expect(messageText(`<at>${long}</at> go`, BOT)).toBe(`<at>${long}</at> go`);
  });
});

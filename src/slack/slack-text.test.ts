import { describe, expect, it } from 'vitest';
import { plainSlackText } from './slack-text.js';

describe('plainSlackText', () => {
  it.each([
    // Entities, decoded once: what was typed comes out.
    ['a &lt; b &amp; c', 'a < b & c'],
    ['x &gt; 2 &amp;&amp; y', 'x > 2 && y'],
    ['typed &amp;lt; literally', 'typed &lt; literally'],
    ['&amp;amp;', '&amp;'],
    ['no escapes at all', 'no escapes at all'],
    ['&quot;other entities&quot; stay', '&quot;other entities&quot; stay'],
    // Markup, made readable before the entities are decoded.
    ['ask <@U0HUMAN002>', 'ask @U0HUMAN002'],
    ['ask <@W0HUMAN002|grace>', 'ask @grace'],
    ['see <#C0CHANNEL01|dev>', 'see #dev'],
    ['see <#C0CHANNEL01>', 'see #C0CHANNEL01'],
    ['<!here> and <!channel>', '@here and @channel'],
    ['<!subteam^S0TEAM|@oncall> look', '@oncall look'],
    ['<!date^1392734382^{date}|Feb 18, 2014> release', 'Feb 18, 2014 release'],
    ['open <https://example.com/a?b=1&amp;c=2>', 'open https://example.com/a?b=1&c=2'],
    ['open <https://example.com/a?b=1&amp;c=2|the doc &amp; notes>', 'open the doc & notes (https://example.com/a?b=1&c=2)'],
    ['typed <http://example.com|example.com>', 'typed example.com'],
    ['mail <mailto:ada@example.com|ada@example.com>', 'mail ada@example.com'],
    // An escaped `<` is text, never markup, whatever follows it.
    ['&lt;@U0HUMAN002&gt; is text', '<@U0HUMAN002> is text'],
    ['&lt;https://evil|label&gt;', '<https://evil|label>'],
  ])('%j → %j', (text, plain) => {
    expect(plainSlackText(text)).toBe(plain);
  });
});

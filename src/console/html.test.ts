import { describe, expect, it } from 'vitest';
import { escapeHtml, html, link, safeHref } from './html.js';

describe('html template', () => {
  it.each([
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['"><img src=x onerror=alert(1)>', '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'],
    ["it's `x` & y", 'it&#39;s &#96;x&#96; &amp; y'],
    ['\u202Eevil\u200B', '\u202Eevil\u200B'],
  ])('escapes %j', (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
    expect(html`<p title="${input}">${input}</p>`.value).toBe(`<p title="${expected}">${expected}</p>`);
  });

  it('nests templates without escaping them twice, joins arrays, skips empty values', () => {
    const items = ['a<', 'b'].map((item) => html`<li>${item}</li>`);
    // Called by another name: Prettier reflows templates tagged `html`, and this one's whitespace is the point.
    const template = html;
    expect(template`<ul>${items}</ul>${undefined}${null}${false}${0}`.value).toBe('<ul><li>a&lt;</li><li>b</li></ul>0');
  });

  it.each([
    ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['http://127.0.0.1:3000/x', 'http://127.0.0.1:3000/x'],
    ['/console/run?id=1', '/console/run?id=1'],
    ['javascript:alert(1)', undefined],
    ['JaVaScRiPt:alert(1)', undefined],
    ['data:text/html,<b>x</b>', undefined],
    ['//evil.example.com', undefined],
    ['not a url', undefined],
  ])('safeHref(%j)', (input, expected) => {
    expect(safeHref(input)).toBe(expected);
  });

  it('renders an unsafe link as text', () => {
    expect(link('javascript:alert(1)', '<x>').value).toBe('&lt;x&gt;');
    expect(link('https://e.com/"', 'go').value).toBe('<a href="https://e.com/%22" rel="noreferrer noopener">go</a>');
  });
});

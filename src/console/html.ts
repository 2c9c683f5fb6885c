/**
 * The console's only way to make HTML: a tagged template that escapes every interpolated value unless
 * it is already `SafeHtml` (the result of another `html` template). User text can therefore never be
 * concatenated into markup by accident.
 */

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character);
}

/** What a template may hold: text and numbers (escaped), markup already made safe, and lists of these. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: every value escaped; arrays joined; undefined, null and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/**
 * A URL fit for an `href`: only http(s) and site-relative paths; anything else (`javascript:`, `data:`)
 * becomes undefined, so the caller renders plain text instead of a link.
 */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** A link when the URL is safe, else the text alone. */
export function link(url: string | null | undefined, text: HtmlValue): SafeHtml {
  const href = safeHref(url);
  return href ? html`<a href="${href}" rel="noreferrer noopener">${text}</a>` : html`${text}`;
}

/**
 * Quoted platform content for prompts: every line prefixed with `> `, so quoted text can neither
 * close the block it stands in nor pose as one of our own markers.
 */
export function quote(text: string): string {
  return (
    text
      // Every line break a reader (or a model) may honour, not only CR and LF: NEL, LS and PS too.
      .split(/\r\n|[\r\n\u0085\u2028\u2029]/)
      .map((line) => `> ${line}`)
      .join('\n')
  );
}

/** Platform text for a header line (a name, a title): line breaks and control characters become spaces. */
export function oneLine(text: string): string {
  // \p{Cc} is exactly U+0000–U+001F and U+007F–U+009F.
  return text
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

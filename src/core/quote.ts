/**
 * Quoted platform content for prompts: every line prefixed with `> `, so quoted text can neither
 * close the block it stands in nor pose as one of our own markers.
 */
export function quote(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => `> ${line}`)
    .join('\n');
}

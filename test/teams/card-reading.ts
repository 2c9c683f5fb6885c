/** Reading Adaptive Cards in tests: every object in one, and the words its TextRuns show. */

type Json = Record<string, unknown>;

/** Every object in a card (or anything holding cards), depth first. */
export function cardNodes(value: unknown, into: Json[] = []): Json[] {
  if (Array.isArray(value)) value.forEach((item) => cardNodes(item, into));
  else if (value && typeof value === 'object') {
    into.push(value as Json);
    Object.values(value).forEach((item) => cardNodes(item, into));
  }
  return into;
}

/** The words shown, in order: the text of every TextRun. */
export function textRuns(value: unknown): string {
  return cardNodes(value)
    .flatMap((node) => (node['type'] === 'TextRun' && typeof node['text'] === 'string' ? [node['text']] : []))
    .join('');
}

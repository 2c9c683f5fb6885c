/**
 * Files attached to a request, as a prompt lists them: name, type, size and a link a
 * person with access can open — never the file's bytes, never a link that grants access by itself.
 */
import { oneLine } from './quote.js';

/** A file as an edge describes it; `link` is what a person opens (a chat's permalink). */
export interface AttachedFile {
  name: string;
  type?: string;
  size?: number;
  link?: string;
}

/** Query parameters that make a URL a credential (signed or tokenised links). */
const SECRET_PARAMS = /token|sig|signature|secret|key|auth|credential|expires|x-amz|x-goog/i;
const MAX_FILES = 20;

/**
 * `url` when a person can open it with their own access: https, no user or password in it and no
 * query parameter that looks like a signature or token. Undefined otherwise.
 */
export function safeFileLink(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return undefined;
  for (const name of parsed.searchParams.keys()) if (SECRET_PARAMS.test(name)) return undefined;
  return parsed.toString();
}

/** A size people read: bytes, KB or MB (1024-based, one decimal). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The lines that list `files` in a prompt or follow-up, or '' when there are none. Names and types
 * are platform text: one line each, cut, so a file name cannot pose as an instruction block.
 */
export function attachmentLines(files: readonly AttachedFile[]): string {
  if (files.length === 0) return '';
  const lines = ['Attached files (listed only: open a link with your own access; the contents are not included):'];
  for (const file of files.slice(0, MAX_FILES)) {
    const facts = [file.type ? oneLine(file.type).slice(0, 80) : undefined, file.size !== undefined && file.size >= 0 ? formatSize(file.size) : undefined]
      .filter((fact) => fact !== undefined && fact !== '')
      .join(', ');
    const link = safeFileLink(file.link);
    lines.push(`- ${oneLine(file.name).slice(0, 200) || 'unnamed file'}${facts ? ` (${facts})` : ''}${link ? `: ${link}` : ''}`);
  }
  if (files.length > MAX_FILES) lines.push(`- … and ${files.length - MAX_FILES} more`);
  return lines.join('\n');
}

/** `text` followed by the list of `files`, if any. */
export function withAttachments(text: string, files: readonly AttachedFile[] | undefined): string {
  const list = attachmentLines(files ?? []);
  if (list === '') return text;
  return text.trim() === '' ? list : `${text.trimEnd()}\n\n${list}`;
}

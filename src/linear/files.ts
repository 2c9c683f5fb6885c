import type { AttachedFile } from '../core/attachments.js';

/*
 * Linear has no file list on a comment: an upload is a Markdown link (or image) to Linear's upload
 * host in the body, `[report.pdf](https://uploads.linear.app/…)`, which opens for members of the
 * workspace only. Those links are the files of a comment.
 */
const UPLOAD = /!?\[([^\]\n]*)\]\((https:\/\/uploads\.linear\.app\/[^)\s]+)\)/g;
const TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  txt: 'text/plain',
  log: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  zip: 'application/zip',
};

/** The uploads a comment body links to, once each, in order. */
export function linearFiles(body: string): AttachedFile[] | undefined {
  const files: AttachedFile[] = [];
  const seen = new Set<string>();
  for (const match of body.matchAll(UPLOAD)) {
    const link = match[2] ?? '';
    if (seen.has(link)) continue;
    seen.add(link);
    const name = (match[1] ?? '').trim() || decodeURIComponent(link.split('/').pop() ?? '') || 'file';
    const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
    const type = extension ? (TYPES[extension] ?? extension) : undefined;
    files.push({ name, link, ...(type && { type }) });
  }
  return files.length > 0 ? files : undefined;
}

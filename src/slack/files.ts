import type { AttachedFile } from '../core/attachments.js';

/**
 * The files of a Slack message event as a prompt may list them: name, type, size and the
 * `permalink` a member opens in Slack. Never `url_private` or `url_private_download`: they serve the
 * bytes to the bot token. Files Slack hides (a tombstone, over the plan's limit) have no name and are
 * left out.
 */
export function slackFiles(value: unknown): AttachedFile[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const files: AttachedFile[] = [];
  for (const item of value as unknown[]) {
    if (item === null || typeof item !== 'object') continue;
    const file = item as Record<string, unknown>;
    const name = typeof file['name'] === 'string' && file['name'] !== '' ? file['name'] : typeof file['title'] === 'string' ? file['title'] : '';
    if (name === '') continue;
    const type =
      typeof file['mimetype'] === 'string' && file['mimetype'] !== '' ? file['mimetype'] : typeof file['filetype'] === 'string' ? file['filetype'] : undefined;
    files.push({
      name,
      ...(type !== undefined && type !== '' && { type }),
      ...(typeof file['size'] === 'number' && Number.isFinite(file['size']) && { size: file['size'] }),
      ...(typeof file['permalink'] === 'string' && { link: file['permalink'] }),
    });
  }
  return files.length > 0 ? files : undefined;
}

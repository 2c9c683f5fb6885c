import { relative } from 'node:path';
import { commentsOf } from './comments.js';

/** An issue cited by its number (the word, singular or plural, any case, then the number), as a tracker the repository does not hold numbers them. */
const ISSUE_NUMBER = /\bissues? #?\d+/i;

/**
 * Every comment line of `files` that cites an issue by its number, as `path:line: the line`, the path
 * relative to `root`. Strings, templates and test titles are not comments and are left alone.
 */
export function issueCitations(root: string, files: readonly string[]): string[] {
  return files.flatMap((file) =>
    commentsOf(file).flatMap(({ line, text }) =>
      text.split('\n').flatMap((row, index) => (ISSUE_NUMBER.test(row) ? [`${relative(root, file)}:${line + index}: ${row.trim()}`] : [])),
    ),
  );
}

/** The files, relative to the root, that `issueCitations` found citing. */
export function citingFiles(citations: readonly string[]): string[] {
  return [...new Set(citations.map((citation) => citation.slice(0, citation.indexOf(':'))))];
}

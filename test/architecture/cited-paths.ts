import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { commentsOf } from './comments.js';

/** Folders of a checkout that are not the repository's own words: built, installed or run-time files. */
const NOT_OURS = new Set(['node_modules', 'dist', 'data', 'coverage', '.git']);

/** What a comment may cite: a path of the repository, a bare source file name, a numbered section. */
const WORD = /[^\s`'"(),;[\]]+/g;
const CITABLE = /^[\w./-]*[\w-]\.(?:ts|js|md|json|ya?ml|sql)$|\/$/;
const SECTION = /§\s?(\d+)/g;
const DESIGN = /\bdesign(?:\.md| doc(?:ument)?)?\s*(?:§\s?\d+|:)/gi;

/** The folder a citation starts from: the root, `src/`, `src/core/` (as the docs write them), or the citing file's folder and those above it. */
function bases(root: string, file: string): string[] {
  const found = [root, join(root, 'src'), join(root, 'src/core')];
  for (let dir = dirname(file); dir.startsWith(root) && dir !== root; dir = dirname(dir)) found.push(dir);
  return found;
}

function isOurFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory() && !NOT_OURS.has(path.split('/').pop() ?? '');
}

/** The files of the repository by name, for citations that give a file's name alone. */
function fileNames(root: string): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (NOT_OURS.has(entry.name)) continue;
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else names.add(entry.name);
    }
  };
  walk(root);
  return names;
}

/**
 * Whether a word of a comment names a path of the repository that is missing. Only words that look
 * like the repository's own paths are judged: `./` and `../` source files, paths whose first folder is one of
 * the repository's (from the root, `src/` or `src/core/`), and bare `.ts` names. URLs, globs,
 * absolute paths, placeholders and other projects' paths (`path/to/SKILL.md`, `dist/cli.js`) are not.
 */
function missingPath(root: string, file: string, names: Set<string>, word: string): boolean {
  if (word.startsWith('/') || word.includes('://') || /[*{}<>$~…@]/.test(word)) return false;
  const path = word.split(/[:#]/)[0]?.replace(/[.]+$/, '') ?? '';
  if (!CITABLE.test(path)) return false;
  const variants = path.endsWith('.js') ? [path, path.replace(/\.js$/, '.ts')] : [path];
  // Relative as an import is: a `./agent-bridge.yml` is the working directory's, not the repository's.
  if (path.startsWith('./') || path.startsWith('../')) return /\.[jt]s$/.test(path) && !variants.some((variant) => existsSync(resolve(dirname(file), variant)));
  if (!path.includes('/')) return path.endsWith('.ts') && !names.has(path);
  const first = path.split('/')[0] ?? '';
  const from = bases(root, file).filter((base) => isOurFolder(join(base, first)));
  return from.length > 0 && !from.some((base) => variants.some((variant) => existsSync(join(base, variant))));
}

/** The numbered sections (`## 5. …`) of a document. */
function sectionsOf(doc: string): Set<string> {
  return new Set([...readFileSync(doc, 'utf8').matchAll(/^#{1,6} (\d+)\./gm)].map((match) => match[1] ?? ''));
}

/** The document a `§N` at `index` belongs to: the last `.md` named before it in the same comment. */
function documentBefore(root: string, text: string, index: number): string | undefined {
  const named = [...text.slice(0, index).matchAll(/([\w./-]+\.md)\b/g)].pop()?.[1];
  if (named === undefined) return undefined;
  const candidates = [join(root, named), join(root, 'docs', named)];
  return candidates.find((candidate) => existsSync(candidate)) ?? join(root, named);
}

/** A citation that points at nothing, and where in its comment it is. */
interface Stale {
  index: number;
  citation: string;
}

/** What is wrong with the `§N` citations and design-document citations of one comment. */
function staleSections(root: string, text: string): Stale[] {
  const found = [...text.matchAll(DESIGN)].map((match) => ({ index: match.index, citation: `${match[0]} (no design document in the repository: cite docs/)` }));
  for (const match of text.matchAll(SECTION)) {
    if (/\bdesign(?:\.md)?\s*$/i.test(text.slice(0, match.index))) continue;
    const doc = documentBefore(root, text, match.index);
    const problem =
      doc === undefined
        ? `${match[0]} (of no document named before it)`
        : !existsSync(doc)
          ? `${relative(root, doc)} ${match[0]} (no such document)`
          : sectionsOf(doc).has(match[1] ?? '')
            ? undefined
            : `${relative(root, doc)} ${match[0]} (no such section)`;
    if (problem !== undefined) found.push({ index: match.index, citation: problem });
  }
  return found;
}

/**
 * Every citation in the comments of `files` that points at nothing: a path of the repository that
 * does not exist, a section number its document lacks, or a design document the repository does not
 * have. Each as `file:line: citation`.
 */
export function staleCitations(root: string, files: readonly string[]): string[] {
  const names = fileNames(root);
  return files.flatMap((file) =>
    commentsOf(file).flatMap(({ line, text }) => {
      const paths = [...text.matchAll(WORD)]
        .filter((match) => missingPath(root, file, names, match[0]))
        .map((match) => ({ index: match.index, citation: match[0] }));
      return [...paths, ...staleSections(root, text)]
        .sort((a, b) => a.index - b.index)
        .map(({ index, citation }) => `${relative(root, file)}:${line + text.slice(0, index).split('\n').length - 1}: ${citation}`);
    }),
  );
}

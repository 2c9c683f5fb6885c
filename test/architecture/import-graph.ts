import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../helpers/spawn-cli.js';

/** `import … from`, `export … from`, `import('…')` and bare `import '…'`, type-only imports included. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

/** Every module specifier a file names. */
export function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

/** The `.ts` files under `dir`, tests left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The files a file imports through relative specifiers (resolved to `.ts` paths that exist). */
export function localImports(file: string): string[] {
  return specifiers(file)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
    .filter((target) => existsSync(target));
}

/** Every package reached from `entry` through relative imports, with the chain that reaches it. */
export function reachablePackages(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of specifiers(file)) {
      if (specifier.startsWith('.')) {
        walk(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')), [...chain, relative(ROOT, file)]);
      } else if (!packages.has(specifier)) {
        packages.set(specifier, [...chain, relative(ROOT, file)]);
      }
    }
  };
  walk(entry, []);
  return packages;
}

/**
 * The strongly connected components of `graph` with more than one node, or a node with an edge to
 * itself (Tarjan's algorithm). Edges to nodes outside the graph are ignored.
 */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;

  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component.sort());
  };

  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/**
 * The import cycles among `files`: strongly connected components of more than one file, or a file
 * that imports itself, each as repository-relative paths.
 */
export function importCycles(files: readonly string[]): string[][] {
  const graph = new Map(files.map((file) => [relative(ROOT, file), localImports(file).map((target) => relative(ROOT, target))]));
  return cyclesOf(graph);
}

/** The folder directly under `root` that holds `file`, or the file's own name when it sits in `root` itself. */
export function folderOf(root: string, file: string): string {
  return relative(root, file).split('/')[0] ?? '';
}

/**
 * The import cycles between the folders directly under `root` (a file directly in `root`, such as
 * src/main.ts, is a node of its own): each cycle as its folder names, with one import per edge
 * that closes it, `from → to`, so a failure says which file to move.
 */
export function folderCycles(root: string, files: readonly string[]): Array<{ folders: string[]; imports: string[] }> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of files) {
    const from = folderOf(root, file);
    const targets = edges.get(from) ?? new Map<string, string>();
    edges.set(from, targets);
    for (const target of localImports(file)) {
      if (relative(root, target).startsWith('..')) continue;
      const to = folderOf(root, target);
      if (to !== from && !targets.has(to)) targets.set(to, `${relative(ROOT, file)} → ${relative(ROOT, target)}`);
    }
  }
  const graph = new Map([...edges].map(([from, targets]) => [from, [...targets.keys()]]));
  return cyclesOf(graph).map((folders) => ({
    folders,
    imports: folders.flatMap((from) => [...(edges.get(from) ?? new Map<string, string>())].filter(([to]) => folders.includes(to)).map(([, line]) => line)),
  }));
}

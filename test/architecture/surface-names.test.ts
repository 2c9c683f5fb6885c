import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SURFACE_MODULES } from '../../src/surface-list.js';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { commentsOf } from './comments.js';
import { sourceFiles } from './import-graph.js';

/*
 * A surface is one module: code outside its folder reaches it through the list of surfaces, never by
 * name, so that adding one touches only its folder and the list. Comments may name surfaces (they say
 * why); code may not, except where it must.
 */

/** Code that names surfaces and may: each a file of `src` and the text in it that may name them. */
const ALLOWED: ReadonlyArray<{ file: string; text: RegExp }> = [
  // The one registration list.
  { file: 'surface-list.ts', text: /[\s\S]+/g },
  // The run API emulator stands in for the provider: its sample pull-request URLs and the run API's own `source` values.
  { file: 'emulator/run-engine.ts', text: /https:\/\/github\.com\/example\//g },
  { file: 'emulator/query.ts', text: /'(?:LINEAR|SLACK|GITHUB_ACTION)'/g },
];

/**
 * Surfaces whose own words include another surface's name: Linear and Slack have teams of their own
 * (Linear's team keys, Slack's workspaces and `allowed_teams`), which are not Microsoft Teams.
 */
const OWN_WORDS: Readonly<Record<string, readonly string[]>> = { linear: ['teams'], slack: ['teams'] };

const ownWord = (path: string, surface: string) => (OWN_WORDS[path.split('/')[0] ?? ''] ?? []).includes(surface);

/** The file's code: comments blanked, strings, templates and regular expressions kept. */
function codeOf(file: string): string {
  let code = readFileSync(file, 'utf8');
  for (const comment of commentsOf(file))
    code = code.slice(0, comment.start) + ' '.repeat(comment.text.length) + code.slice(comment.start + comment.text.length);
  return code;
}

/**
 * For each surface, the non-test source files of `src` outside its folder whose code names it (any
 * case, within a word too: `SLACK_BOT_TOKEN`, `slackSurface`), migrations and the allowed text aside.
 */
function filesNaming(src: string, surfaces: readonly string[], allowed = ALLOWED): Record<string, string[]> {
  const files = sourceFiles(src)
    .map((file) => ({ path: relative(src, file), file }))
    .filter(({ path }) => !path.split('/').includes('migrations'));
  const code = new Map(
    files.map(({ path, file }) => [path, allowed.filter((entry) => entry.file === path).reduce((text, entry) => text.replace(entry.text, ''), codeOf(file))]),
  );
  return Object.fromEntries(
    surfaces.map((surface) => [
      surface,
      files
        .filter(({ path }) => !path.startsWith(`${surface}/`) && !ownWord(path, surface) && new RegExp(surface, 'i').test(code.get(path) ?? ''))
        .map(({ path }) => path)
        .sort(),
    ]),
  );
}

describe('code outside a surface’s folder does not name it', () => {
  const surfaces: readonly string[] = SURFACE_MODULES.map((surface) => surface.name);
  const naming = filesNaming(join(ROOT, 'src'), surfaces);

  it.each(surfaces)('%s: no file outside its folder names it — reach it through the list of surfaces instead', (surface) => {
    expect(naming[surface]).toEqual([]);
  });

  it('the check finds a name in code — a string, a template, a regular expression, an identifier — and none in comments, the surface’s own folder, migrations or allowed text', () => {
    const src = tempDir('names-');
    for (const folder of ['alpha', 'other', 'store/migrations']) mkdirSync(join(src, folder), { recursive: true });
    const files: Record<string, string> = {
      'alpha/own.ts': "export const own = 'alpha';\n",
      'other/comment.ts': '// alpha is named here only\n/** and Alpha here */\nexport const none = 1;\n',
      'other/string.ts': "export const place = 'alpha:1';\n",
      'other/template.ts': 'const n = 1;\nexport const place = `x${n}ALPHA${n}`;\n',
      'other/regex.ts': 'export const place = /^alpha:/;\n',
      'other/identifier.ts': 'const alphaSurface = 1;\nexport const place = alphaSurface;\n',
      'other/allowed.ts': "export const sample = 'https://alpha.example/1';\n",
      'store/migrations/0001-init.ts': "export const sql = 'alpha';\n",
    };
    for (const [path, text] of Object.entries(files)) writeFileSync(join(src, path), text);
    expect(filesNaming(src, ['alpha'], [{ file: 'other/allowed.ts', text: /https:\/\/alpha\.example\//g }])).toEqual({
      alpha: ['other/identifier.ts', 'other/regex.ts', 'other/string.ts', 'other/template.ts'],
    });
  });
});

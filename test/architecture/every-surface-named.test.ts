import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registeredSurfaces } from '../../src/compose/surfaces.js';
import { loadConfig } from '../../src/config/index.js';
import { runCliInProcess } from '../helpers/cli-context.js';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { commentsOf, typeScriptFiles } from './comments.js';

// Words written when the bridge had two surfaces went on saying "Slack and Linear" where every
// platform people talk to it from was meant; each text here speaks for all of them, so it names each.
const PLATFORMS = ['Slack', 'Linear', 'GitHub', 'Jira'];

const missing = (text: string) => PLATFORMS.filter((title) => !text.includes(title));

describe('the texts that speak for every platform name each one', () => {
  it('names each as its registered surface does', () => {
    const titles = registeredSurfaces(loadConfig({ env: {}, cwd: tempDir() }))
      .all()
      .map((surface) => surface.title);
    expect(titles).toEqual(expect.arrayContaining(PLATFORMS));
  });

  it('the README’s status line', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const status = readme.split('\n\n').find((paragraph) => paragraph.startsWith('> Status:')) ?? '';
    expect(status).not.toBe('');
    expect(missing(status)).toEqual([]);
  });

  it('the package’s description', () => {
    const { description } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { description: string };
    expect(missing(description)).toEqual([]);
  });

  it.each([[['--help']], [['runs', 'get', '--help']]])('the command line’s %j', async (args) => {
    const help = await runCliInProcess(args);
    expect(help.code).toBe(0);
    expect(missing(help.stdout)).toEqual([]);
  });

  it('no text in the service’s code (comments aside) says "Slack and Linear" or "Slack or Linear"', () => {
    const files = typeScriptFiles(ROOT, ['src']).filter((file) => !file.endsWith('.test.ts'));
    const saying = files.flatMap((file) => {
      let code = readFileSync(file, 'utf8');
      for (const comment of commentsOf(file))
        code = code.slice(0, comment.start) + ' '.repeat(comment.text.length) + code.slice(comment.start + comment.text.length);
      return [...code.matchAll(/slack (?:and|or) linear|linear (?:and|or) slack/gi)].map((match) => `${file.slice(ROOT.length + 1)}: ${match[0]}`);
    });
    expect(saying).toEqual([]);
  });
});

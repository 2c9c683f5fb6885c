import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registeredSurfaces } from '../../src/compose/surfaces.js';
import { loadConfig } from '../../src/config/index.js';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';

// Words written when the bridge had two surfaces went on saying "Slack and Linear" where every
// surface was meant; each text here speaks for all of them, so it names every registered one.
const titles = registeredSurfaces(loadConfig({ env: {}, cwd: tempDir() }))
  .all()
  .map((surface) => surface.title);

const missing = (text: string) => titles.filter((title) => !text.includes(title));

describe('the texts that speak for every surface name each registered one', () => {
  it('has the surfaces to look for', () => {
    expect(titles).toEqual(expect.arrayContaining(['Slack', 'Linear', 'GitHub', 'Jira']));
  });

  it('the README’s status line', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const status = readme.split('\n\n').find((paragraph) => paragraph.startsWith('> Status:')) ?? '';
    expect(status).not.toBe('');
    expect(missing(status)).toEqual([]);
  });
});

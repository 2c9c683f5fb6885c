/** Which config file is read: command line, AGENT_BRIDGE_CONFIG, or ./agent-bridge.yml when present. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { problemsOf, tempDir } from '../../test/config/helpers.js';

describe('loadConfig: which file', () => {
  it('uses ./agent-bridge.yml when present, and runs on defaults without it', () => {
    const withFile = tempDir({ 'agent-bridge.yml': 'tracker: { page_size: 3 }' });
    expect(loadConfig({ env: {}, cwd: withFile })).toMatchObject({
      configFile: path.join(withFile, 'agent-bridge.yml'),
      tracker: { pageSize: 3 },
    });
    expect(loadConfig({ env: {}, cwd: tempDir() }).configFile).toBeUndefined();
  });

  it('labels a file outside cwd by its absolute path', () => {
    const elsewhere = path.join(tempDir({ 'x.yml': 'tracker: { page_size: 0 }' }), 'x.yml');
    const problems = problemsOf(() => loadConfig({ env: {}, cwd: tempDir(), configPath: elsewhere }));
    expect(problems.map((problem) => problem.where)).toEqual([`${elsewhere}: tracker.page_size`]);
  });

  it('reads the file AGENT_BRIDGE_CONFIG names, relative to cwd', () => {
    const cwd = tempDir({ 'conf/bridge.yml': 'tracker: { page_size: 7 }' });
    const config = loadConfig({ env: { AGENT_BRIDGE_CONFIG: 'conf/bridge.yml' }, cwd });
    expect(config.configFile).toBe(path.join(cwd, 'conf', 'bridge.yml'));
    expect(config.tracker.pageSize).toBe(7);
  });

  it('labels problems with the path of the file in use', () => {
    const cwd = tempDir({ 'conf/bridge.yml': 'tracker: { page_size: 0 }' });
    const problems = problemsOf(() => loadConfig({ env: { AGENT_BRIDGE_CONFIG: 'conf/bridge.yml' }, cwd }));
    expect(problems.map((problem) => problem.where)).toEqual([`${path.join('conf', 'bridge.yml')}: tracker.page_size`]);
  });

  it('prefers the command-line path over AGENT_BRIDGE_CONFIG', () => {
    const cwd = tempDir({ 'a.yml': 'tracker: { page_size: 1 }', 'b.yml': 'tracker: { page_size: 2 }' });
    const config = loadConfig({ env: { AGENT_BRIDGE_CONFIG: 'a.yml' }, cwd, configPath: 'b.yml' });
    expect(config.tracker.pageSize).toBe(2);
  });

  it.each([
    ['AGENT_BRIDGE_CONFIG', { AGENT_BRIDGE_CONFIG: 'missing.yml' }, undefined],
    ['--config', {}, 'missing.yml'],
  ])('a missing file named by %s is an error', (where, env, configPath) => {
    const cwd = tempDir({ 'agent-bridge.yml': '' });
    const problems = problemsOf(() => loadConfig({ env, cwd, ...(configPath ? { configPath } : {}) }));
    expect(problems).toEqual([expect.objectContaining({ where, message: expect.stringContaining(path.join(cwd, 'missing.yml')) })]);
  });

  it('a directory named as the config file is an error', () => {
    const cwd = tempDir({ 'conf/x.yml': '' });
    const problems = problemsOf(() => loadConfig({ env: { AGENT_BRIDGE_CONFIG: 'conf' }, cwd }));
    expect(problems[0]).toMatchObject({ where: 'AGENT_BRIDGE_CONFIG', message: expect.stringContaining('not a file') });
  });
});

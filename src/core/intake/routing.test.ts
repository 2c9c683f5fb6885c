import { describe, expect, it } from 'vitest';
import { resolveRoute, type Origin, type RoutingTable } from './routing.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

const table: RoutingTable = {
  defaults: { config: { environment_id: 'env_main', model_id: 'm-default', mcp_servers: { github: { url: 'g' } } } },
  schedules: { 'nightly-deps': { config: { environment_id: 'env_deps' }, title: 'Nightly deps' } },
};
const surfaces = testSurfaces({
  slack: {
    C_WEB: { config: { environment_id: 'env_web', name: 'web', mcp_servers: { figma: { url: 'f' } } }, title: 'Web request' },
    C_FACTORY: { factory_uid: 'fac_1' },
    C_AGENT: { agent_identity_uid: 'agent_42' },
    '*': { config: { model_id: 'm-star' } },
  },
  linear: { agent: { config: { environment_id: 'env_api' } } },
});

describe('resolveRoute', () => {
  it.each<[string, Origin, unknown]>([
    [
      'a channel route over the defaults, its own name, mcp servers merged',
      { source: 'slack', channel: 'C_WEB' },
      {
        kind: 'run',
        title: 'Web request',
        config: { environment_id: 'env_web', model_id: 'm-default', name: 'web', mcp_servers: { github: { url: 'g' }, figma: { url: 'f' } } },
      },
    ],
    [
      'an unlisted channel takes "*", named after the source',
      { source: 'slack', channel: 'C_OTHER' },
      { kind: 'run', config: { environment_id: 'env_main', model_id: 'm-star', name: 'slack', mcp_servers: { github: { url: 'g' } } } },
    ],
    ['a factory route carries no config', { source: 'slack', channel: 'C_FACTORY' }, { kind: 'factory', factory_uid: 'fac_1' }],
    [
      'an agent identity keeps the default config',
      { source: 'slack', channel: 'C_AGENT' },
      {
        kind: 'run',
        agent_identity_uid: 'agent_42',
        config: { environment_id: 'env_main', model_id: 'm-default', name: 'slack', mcp_servers: { github: { url: 'g' } } },
      },
    ],
    [
      'a label matches case-insensitively, named linear',
      { source: 'linear', label: 'Agent' },
      { kind: 'run', config: { environment_id: 'env_api', model_id: 'm-default', name: 'linear', mcp_servers: { github: { url: 'g' } } } },
    ],
    [
      'a schedule is named after itself',
      { source: 'schedule', schedule: 'nightly-deps' },
      {
        kind: 'run',
        title: 'Nightly deps',
        config: { environment_id: 'env_deps', model_id: 'm-default', name: 'nightly-deps', mcp_servers: { github: { url: 'g' } } },
      },
    ],
    [
      'the CLI gets the defaults, named cli',
      { source: 'cli' },
      { kind: 'run', config: { environment_id: 'env_main', model_id: 'm-default', name: 'cli', mcp_servers: { github: { url: 'g' } } } },
    ],
  ])('%s', (_what, origin, expected) => {
    expect(resolveRoute(table, origin, surfaces)).toEqual(expected);
  });

  it('a factory in the defaults applies unless the route runs an agent', () => {
    const factoryDefaults: RoutingTable = { ...table, defaults: { factory_uid: 'fac_default' } };
    expect(resolveRoute(factoryDefaults, { source: 'cli' }, surfaces)).toEqual({ kind: 'factory', factory_uid: 'fac_default' });
    expect(resolveRoute(factoryDefaults, { source: 'linear', label: 'agent' }, surfaces)).toEqual({
      kind: 'run',
      config: { environment_id: 'env_api', name: 'linear' },
    });
  });

  it('a name in the defaults applies when the route has none', () => {
    const named: RoutingTable = { ...table, defaults: { config: { name: 'team' } } };
    expect(resolveRoute(named, { source: 'linear', label: 'agent' }, surfaces)).toMatchObject({ config: { name: 'team' } });
  });
});

import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn-cli.js';
import { reachablePackages, sourceFiles, specifiers } from './import-graph.js';

const CORE = join(ROOT, 'src/core');
// Every surface's SDK, those of surfaces to come among them (Microsoft Teams, GitLab): the core reaches a surface through its ports only.
const SURFACE_SDKS = [/^@slack\//, /^@linear\//, /^@octokit\//, /^jira\.js$/, /^@microsoft\//, /^botbuilder/, /^@gitbeaker\//];
// OpenTelemetry too: the core traces through its `Tracing` port, whose adapter (src/telemetry/) is loaded only when tracing is on.
const FORBIDDEN = [...SURFACE_SDKS, /^better-sqlite3$/, /^pg$/, /^undici$/, /^pino/, /^prom-client$/, /^node-cron$/, /^@opentelemetry\//];
const forbidden = (pkg: string) => FORBIDDEN.some((pattern) => pattern.test(pkg));

describe('the core stays free of platform code', () => {
  const files = sourceFiles(CORE);

  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s reaches no platform library, even transitively', (_name, file) => {
    const offending = [...reachablePackages(file)].filter(([pkg]) => forbidden(pkg));
    expect(offending.map(([pkg, chain]) => `${pkg} via ${chain.join(' → ')}`)).toEqual([]);
  });

  it('core files import nothing outside src/core', () => {
    const outside = files.flatMap((file) =>
      specifiers(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => resolve(dirname(file), specifier))
        .filter((target) => !target.startsWith(CORE))
        .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
    );
    expect(outside).toEqual([]);
  });

  it.each([
    '@slack/bolt',
    '@linear/sdk',
    '@octokit/rest',
    '@octokit/webhooks-methods',
    'jira.js',
    '@microsoft/teams-ai',
    'botbuilder',
    'botbuilder-core',
    '@gitbeaker/rest',
  ])('forbids the surface SDK %s', (pkg) => {
    expect(forbidden(pkg)).toBe(true);
  });

  it('forbids OpenTelemetry', () => {
    expect(['@opentelemetry/api', '@opentelemetry/sdk-trace-node'].every(forbidden)).toBe(true);
  });

  it('leaves alone what is no SDK of a surface', () => {
    expect(['zod', 'yaml', 'commander', 'jira', 'microsoft', 'octokit'].filter(forbidden)).toEqual([]);
  });

  it('the checker would catch a violation', () => {
    const packages = reachablePackages(join(ROOT, 'src/agent-api/client.ts'));
    expect([...packages.keys()]).toContain('undici');
    expect([...reachablePackages(join(ROOT, 'src/store/postgres/postgres-store.ts')).keys()]).toContain('pg');
    expect([...reachablePackages(join(ROOT, 'src/github/github-api.ts')).keys()].filter(forbidden)).toContain('@octokit/rest');
  });
});

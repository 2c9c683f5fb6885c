import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { until } from '../helpers/until.js';

/*
 * The package as a user gets it: `npm pack` (its lifecycle scripts build dist/ from nothing) and an
 * install of the tarball into an empty folder, then the installed `agent-bridge` executable; and what
 * npm says when a plain `npm install <tarball>` resolves our dependencies on this Node (no engine
 * warning, no install script of ours).
 *
 * Packing happens in a copy of the repository without dist/, so it proves the pack builds what it
 * ships, and never rewrites the dist/ of this checkout under a running `node dist/cli.js`.
 * Installing is `npm ci --offline` with a lockfile made from ours (same versions, production
 * dependencies only): no network, the npm cache filled by our own `npm ci` serves every tarball,
 * and a module the code imports but package.json lists only under devDependencies is missing as it
 * would be for a user. Install scripts are skipped, and better-sqlite3's native build is copied from
 * our node_modules (same version, from the same lockfile): compiling it again takes minutes and
 * tests the compiler, not the package.
 */
const run = promisify(execFile);
const PACKAGE_JSON = readFileSync(join(ROOT, 'package.json'), 'utf8');
const pkg = JSON.parse(PACKAGE_JSON) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
  bin: Record<string, string>;
};
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'coverage', 'data', '.env']);

let tarball = '';
let tarEntries: string[] = [];
/** The packed package.json, and the source's own after the pack (restored by postpack). */
let packedManifest: typeof pkg;
let sourceAfterPack = '';
let sourceLeftovers: string[] = [];
let bin = '';
const temps: string[] = [];

/** A lockfile for a folder whose only dependency is the tarball, pinned like our own lockfile. */
function installLockfile(tarballSpec: string): object {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const packages: Record<string, object> = { '': { dependencies: { [pkg.name]: tarballSpec } } };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  packages[`node_modules/${pkg.name}`] = {
    version: pkg.version,
    resolved: tarballSpec,
    dependencies: pkg.dependencies,
    bin: { 'agent-bridge': 'dist/cli.js' },
  };
  return { name: 'install-check', lockfileVersion: 3, requires: true, packages };
}

beforeAll(async () => {
  const source = tempDir('agent-bridge-pack-src-');
  cpSync(ROOT, source, { recursive: true, filter: (from) => from === ROOT || !(NOT_COPIED.has(basename(from)) || from.endsWith('.db')) });
  // TypeScript and the type packages for the build.
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  // What an older build left behind (a module since renamed) must not ship.
  mkdirSync(join(source, 'dist'));
  writeFileSync(join(source, 'dist/renamed-long-ago.js'), 'export {};\n');
  const out = tempDir('agent-bridge-pack-out-');
  await run('npm', ['pack', '--pack-destination', out, '--loglevel', 'error'], { cwd: source });
  temps.push(source, out);
  tarball = join(out, `${pkg.name}-${pkg.version}.tgz`);
  if (!existsSync(tarball)) throw new Error(`npm pack made no ${tarball}`);
  tarEntries = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean);
  packedManifest = JSON.parse((await run('tar', ['-xzOf', tarball, 'package/package.json'])).stdout) as typeof pkg;
  sourceAfterPack = readFileSync(join(source, 'package.json'), 'utf8');
  sourceLeftovers = readdirSync(source).filter((name) => name.startsWith('package.json.'));

  const install = tempDir('agent-bridge-install-');
  temps.push(install);
  const spec = `file:${tarball}`;
  // A plain project: nothing of ours (no overrides) besides the dependency.
  writeFileSync(join(install, 'package.json'), JSON.stringify({ dependencies: { [pkg.name]: spec } }));
  writeFileSync(join(install, 'package-lock.json'), JSON.stringify(installLockfile(spec)));
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: install }).catch((error: Error) => {
    throw new Error(`installing the tarball offline failed; the npm cache must hold our dependencies (run npm ci in this checkout): ${error.message}`);
  });
  const nativeBuild = join(ROOT, 'node_modules/better-sqlite3/build');
  if (!existsSync(join(nativeBuild, 'Release/better_sqlite3.node'))) throw new Error(`no built better-sqlite3 in ${nativeBuild}: run npm ci`);
  cpSync(nativeBuild, join(install, 'node_modules/better-sqlite3/build'), { recursive: true });
  bin = join(install, 'node_modules/.bin/agent-bridge');
}, 120_000);

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Only what Node needs: no variable of this machine configures the installed service. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], HOME: process.env['HOME'], ...extra };
}

describe('the npm package', () => {
  it('holds the compiled service, its migrations and docs, and nothing from test/, bench/ or src/', () => {
    const paths = tarEntries.map((entry) => entry.replace(/^package\//, ''));
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'docs/configuration.md',
        'dist/cli.js',
        'dist/main.js',
        'manifest.yml',
        'github-app-manifest.json',
        'teams-app/manifest.json',
        'teams-app/color.png',
        'teams-app/outline.png',
        'agent-bridge.example.yml',
        // The README points to it, and package.json says MIT.
        '.env.example',
        'LICENSE',
      ]),
    );
    expect(paths).not.toContain('dist/renamed-long-ago.js');
    for (const migration of MIGRATIONS)
      expect(paths.some((path) => path.startsWith('dist/store/migrations/') && path.includes(String(migration.id).padStart(4, '0')))).toBe(true);
    expect(paths.filter((path) => /^(test|bench|src)\//.test(path) || /\.(ts|map)$/.test(path) || /\.test\.js$/.test(path))).toEqual([]);
  });

  it('ships a package.json without prepare (dist/ comes built) and leaves the source’s own as it was', () => {
    expect(pkg.scripts['prepare']).toBeDefined();
    expect(packedManifest.scripts['prepare']).toBeUndefined();
    const otherScripts = Object.fromEntries(Object.entries(pkg.scripts).filter(([name]) => name !== 'prepare'));
    expect(packedManifest).toEqual({ ...(JSON.parse(PACKAGE_JSON) as object), scripts: otherScripts });
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 agent-bridge contributors\n/);
    expect(sourceAfterPack).toBe(PACKAGE_JSON);
    expect(sourceLeftovers).toEqual([]);
  });

  it('installs an executable agent-bridge that prints the version of package.json', async () => {
    const cwd = tempDir();
    temps.push(cwd);
    const { stdout } = await run(bin, ['--version'], { cwd, env: cleanEnv() });
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('serves with no configuration (built-in emulator), migrates its database and stops on SIGTERM', async () => {
    const cwd = tempDir();
    temps.push(cwd);
    const database = join(cwd, 'data', 'bridge.db');
    mkdirSync(join(cwd, 'data'));
    const child = spawn(bin, ['serve'], { cwd, env: cleanEnv({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: database }), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await until(
        () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1],
        'the listening line',
        20_000,
        () => output,
      );
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    const db = new Database(database, { readonly: true });
    try {
      const applied = db.prepare<[], { id: number }>('SELECT id FROM schema_migrations ORDER BY id').all();
      expect(applied.map((row) => row.id)).toEqual(MIGRATIONS.map((migration) => migration.id));
    } finally {
      db.close();
    }
  });
});

/** What npm printed for `args` in `cwd`, and its exit code (a failing npm resolves too). */
function npmSays(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('npm', args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) || 1 : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

describe('a plain npm install of the tarball, as a user runs it', () => {
  it('resolves our dependencies with no engine warning on this Node, one @octokit/request, and no install script of ours', async (context) => {
    const folder = tempDir();
    temps.push(folder);
    writeFileSync(join(folder, 'package.json'), '{}\n');
    // Resolving needs the registry's package metadata (the npm cache serves what it holds); nothing is installed.
    const { code, output } = await npmSays(['install', tarball, '--dry-run', '--prefer-offline', '--no-audit', '--no-fund'], folder);
    if (code !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH/.test(output)) {
      context.skip(`the npm registry is not reachable from here: ${output.trim().split('\n').slice(-3).join(' ')}`);
    }
    expect(code, output).toBe(0);
    expect(output).toContain(`\nadd ${pkg.name} ${pkg.version}\n`);
    // content-type 3 (from @octokit/request 10.0.15 and later) declares Node 22.
    expect(output).not.toMatch(/EBADENGINE/);
    expect(output.match(/^add @octokit\/request .*$/gm)).toEqual(['add @octokit/request 10.0.14']);
    expect(output.match(/^add content-type .*$/gm)).toEqual(['add content-type 2.1.0']);
    expect(output).not.toMatch(/install-scripts .*agent-bridge@/);
  }, 180_000);
});

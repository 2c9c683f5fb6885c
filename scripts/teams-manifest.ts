/**
 * `npm run teams:manifest`: the Teams app package to upload (docs/teams.md, "Install the app").
 * Fills the placeholders of `teams-app/manifest.json` from `TEAMS_CLIENT_ID` and `PUBLIC_URL` — the
 * environment over `.env`, as the service reads them — and writes the manifest and
 * `agent-bridge-teams.zip` (the manifest and the two icons at the zip's root, as Teams takes an app
 * package) to the `build` folder beside the manifest (git ignores it), or to `--out`. A missing or
 * malformed variable exits 2 naming it, as the service does.
 *
 *   npm run teams:manifest [-- --app-id <GUID>] [-- --out <folder>]
 *
 * `--app-id` is the Teams app's own id (the manifest's `id`): the bot's client id unless a Teams app
 * exists already under another id (the Teams CLI's `teams app create` makes one).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32 } from 'node:zlib';
import { mergeEnvironment, readDotEnv, type Environment } from '../src/config/env.js';
import { GUID } from '../src/teams/config/ids.js';

const APP_FOLDER = fileURLToPath(new URL('../teams-app/', import.meta.url));
export const PACKAGE_NAME = 'agent-bridge-teams.zip';
const ICONS = ['color.png', 'outline.png'];

/** What the placeholders (`{{NAME}}`) of the manifest are filled with. */
export type ManifestValues = Record<'TEAMS_APP_ID' | 'TEAMS_CLIENT_ID' | 'PUBLIC_URL' | 'PUBLIC_HOST', string>;

/** The values from the variables, or what is wrong with them (each naming its variable). */
export function manifestValues(env: Readonly<Record<string, string>>, appId?: string): { values: ManifestValues } | { problems: string[] } {
  const problems: string[] = [];
  const clientId = env['TEAMS_CLIENT_ID']?.toLowerCase();
  if (clientId === undefined) problems.push('TEAMS_CLIENT_ID: is not set — the bot’s Microsoft App ID (a GUID), as the service is given it');
  else if (!GUID.test(clientId)) problems.push('TEAMS_CLIENT_ID: is not a GUID such as 00000000-0000-0000-0000-000000000000');
  if (appId !== undefined && !GUID.test(appId)) problems.push('--app-id: is not a GUID such as 00000000-0000-0000-0000-000000000000');
  let url: URL | undefined;
  try {
    url = new URL(env['PUBLIC_URL'] ?? '');
  } catch {
    problems.push('PUBLIC_URL: is not set or not a URL — the https address Teams reaches the service at, e.g. https://agent-bridge.example.com');
  }
  if (url && url.protocol !== 'https:') problems.push('PUBLIC_URL: must be an https URL — Teams posts only to https');
  if (problems.length > 0 || !url || !clientId) return { problems };
  const base = url.href.replace(/\/+$/, '');
  return { values: { TEAMS_APP_ID: (appId ?? clientId).toLowerCase(), TEAMS_CLIENT_ID: clientId, PUBLIC_URL: base, PUBLIC_HOST: url.hostname } };
}

/** The manifest's text with every placeholder filled; a placeholder it has no value for is a mistake of the template. */
export function fillManifest(template: string, values: ManifestValues): string {
  const filled = template.replace(/\{\{([A-Z_]+)\}\}/g, (placeholder, name: string) => {
    if (!(name in values)) throw new Error(`teams-app/manifest.json: no value for ${placeholder}`);
    return values[name as keyof ManifestValues];
  });
  return `${JSON.stringify(JSON.parse(filled), null, 2)}\n`;
}

/** A zip of the files as they are (stored, no compression), dated 1980-01-01 so that the same files make the same zip. */
export function zipStored(files: ReadonlyArray<{ name: string; data: Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of files) {
    const fileName = Buffer.from(name, 'utf8');
    // version needed 2.0, no flags, method 0 (stored), time 00:00, date 1980-01-01, crc, sizes, name length, no extra
    const common = [20, 0, 0, 0, 0x21, crc32(data), data.length, data.length, fileName.length, 0];
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeFields(local, 4, common);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by: version 2.0
    writeFields(central, 6, common);
    central.writeUInt32LE(offset, 42); // comment length, disk, attributes: 0; then where its local header is
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The header fields local and central headers share, from `at`: four 16-bit, the CRC and two sizes (32-bit), two 16-bit. */
function writeFields(header: Buffer, at: number, [version, flags, method, time, date, crc, compressed, size, nameLength, extra]: number[]): void {
  [version, flags, method, time, date].forEach((value, index) => header.writeUInt16LE(value ?? 0, at + index * 2));
  header.writeUInt32LE(crc ?? 0, at + 10);
  header.writeUInt32LE(compressed ?? 0, at + 14);
  header.writeUInt32LE(size ?? 0, at + 18);
  header.writeUInt16LE(nameLength ?? 0, at + 22);
  header.writeUInt16LE(extra ?? 0, at + 24);
}

/** Writes the filled manifest and the package to `out`; the exit code (2: a variable is missing or wrong, each said on stderr). */
export function buildTeamsPackage(argv: readonly string[], real: Environment, cwd: string, log: (line: string) => void = console.log): number {
  let options: { 'app-id'?: string | undefined; out?: string | undefined };
  try {
    options = parseArgs({ args: [...argv], options: { 'app-id': { type: 'string' }, out: { type: 'string' } } }).values;
  } catch (error) {
    console.error(`teams:manifest: ${error instanceof Error ? error.message : String(error)} (options: --app-id <GUID>, --out <folder>)`);
    return 2;
  }
  const env = mergeEnvironment(real, readDotEnv(cwd).values);
  const checked = manifestValues(env, options['app-id']);
  if ('problems' in checked) {
    for (const problem of checked.problems) console.error(`teams:manifest: ${problem}`);
    return 2;
  }
  const out = resolve(cwd, options.out ?? join(APP_FOLDER, 'build'));
  const manifest = Buffer.from(fillManifest(readFileSync(join(APP_FOLDER, 'manifest.json'), 'utf8'), checked.values));
  const icons = ICONS.map((name) => ({ name, data: readFileSync(join(APP_FOLDER, name)) }));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'manifest.json'), manifest);
  writeFileSync(join(out, PACKAGE_NAME), zipStored([{ name: 'manifest.json', data: manifest }, ...icons]));
  log(`Wrote ${join(out, 'manifest.json')} and ${join(out, PACKAGE_NAME)} (bot ${checked.values.TEAMS_CLIENT_ID}, ${checked.values.PUBLIC_HOST}).`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = buildTeamsPackage(process.argv.slice(2), process.env, process.cwd());

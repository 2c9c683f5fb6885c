/**
 * `npm run teams:manifest` (scripts/teams-manifest.ts): the Teams app package made from the
 * environment — the manifest filled in, and a zip Teams can take. The zip is read back here by a
 * reader of its own (the end record, the central directory, each local header and its CRC), not by
 * the code that wrote it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildTeamsPackage, PACKAGE_NAME } from '../../scripts/teams-manifest.js';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';

const CLIENT_ID = '8d4f2c1a-6e3b-4a7d-b9c2-1e5f7a3d9b60';
const ENV = { TEAMS_CLIENT_ID: CLIENT_ID.toUpperCase(), PUBLIC_URL: 'https://bridge.example.com/base/' };

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs the script's entry in `cwd` with `env` as the real environment; its exit code, what it said on stderr, and where it wrote. */
function build(env: Record<string, string>, args: string[] = [], cwd = tempDir('teams-cwd-')) {
  const out = tempDir('teams-out-');
  const errors: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
  const code = buildTeamsPackage([...args, '--out', out], env, cwd, () => undefined);
  return { code, errors, out, manifest: () => JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Record<string, unknown> };
}

describe('npm run teams:manifest', () => {
  it('writes the manifest filled from TEAMS_CLIENT_ID and PUBLIC_URL, and a zip of it and the icons at the root', () => {
    const { code, out, manifest } = build(ENV);
    expect(code).toBe(0);
    const written = manifest();
    expect(written['id']).toBe(CLIENT_ID);
    expect(written['bots']).toEqual([expect.objectContaining({ botId: CLIENT_ID })]);
    expect(written['validDomains']).toEqual(['bridge.example.com']);
    expect(written['developer']).toMatchObject({ websiteUrl: 'https://bridge.example.com/base/' });
    expect(JSON.stringify(written)).not.toContain('{{');

    const entries = readZip(readFileSync(join(out, PACKAGE_NAME)));
    expect(entries.map((entry) => entry.name)).toEqual(['manifest.json', 'color.png', 'outline.png']);
    expect(entries[0]!.data.equals(readFileSync(join(out, 'manifest.json')))).toBe(true);
    for (const icon of entries.slice(1)) expect(icon.data.equals(readFileSync(join(ROOT, 'teams-app', icon.name)))).toBe(true);
  });

  it('reads .env in the working folder, the real environment winning', () => {
    const cwd = tempDir('teams-cwd-');
    writeFileSync(join(cwd, '.env'), `TEAMS_CLIENT_ID=${CLIENT_ID}\nPUBLIC_URL=https://from-dotenv.example.com\n`);
    expect(build({ PUBLIC_URL: 'https://real.example.com' }, [], cwd).manifest()['validDomains']).toEqual(['real.example.com']);
    expect(build({}, [], cwd).manifest()['validDomains']).toEqual(['from-dotenv.example.com']);
  });

  it('--app-id names the Teams app apart from its bot', () => {
    const appId = '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f';
    const written = build(ENV, ['--app-id', appId]).manifest();
    expect(written['id']).toBe(appId);
    expect(written['bots']).toEqual([expect.objectContaining({ botId: CLIENT_ID })]);
    expect(written['webApplicationInfo']).toMatchObject({ id: CLIENT_ID });
  });

  it.each([
    [{ PUBLIC_URL: ENV.PUBLIC_URL }, [], 'TEAMS_CLIENT_ID: is not set'],
    [{ ...ENV, TEAMS_CLIENT_ID: '28:8d4f2c1a' }, [], 'TEAMS_CLIENT_ID: is not a GUID'],
    [{ TEAMS_CLIENT_ID: CLIENT_ID }, [], 'PUBLIC_URL: is not set or not a URL'],
    [{ ...ENV, PUBLIC_URL: 'http://bridge.example.com' }, [], 'PUBLIC_URL: must be an https URL'],
    [ENV, ['--app-id', 'teams-app'], '--app-id: is not a GUID'],
    [ENV, ['--bogus'], "Unknown option '--bogus'"],
  ])('%j %j: exits 2 saying what is wrong, and writes nothing', (env, args, said) => {
    const { code, errors, out } = build(env, args);
    expect(code).toBe(2);
    expect(errors.join('\n')).toContain(said);
    expect(existsSync(join(out, 'manifest.json')) || existsSync(join(out, PACKAGE_NAME))).toBe(false);
  });
});

/** The files of a zip: its end record, then each central directory entry and the local header it points at. */
function readZip(zip: Buffer): Array<{ name: string; data: Buffer }> {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  expect(at + zip.readUInt32LE(end + 12)).toBe(end);
  const entries: Array<{ name: string; data: Buffer }> = [];
  for (let index = 0; index < count; index++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const [method, crc, size, nameLength] = [zip.readUInt16LE(at + 10), zip.readUInt32LE(at + 16), zip.readUInt32LE(at + 24), zip.readUInt16LE(at + 28)];
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    expect(zip.readUInt32LE(local)).toBe(0x04034b50);
    expect(zip.toString('utf8', local + 30, local + 30 + zip.readUInt16LE(local + 26))).toBe(name);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    expect({ method, crc: crc32(data), localCrc: zip.readUInt32LE(local + 14) }).toEqual({ method: 0, crc, localCrc: crc });
    entries.push({ name, data });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/**
 * The Teams app's manifest and icons (`teams-app/`, docs/teams.md "Install the app") against
 * Microsoft's schema and against the code that answers what the app promises.
 *
 * Microsoft's JSON schema for manifest 1.24 comes from the npm package `@microsoft/app-manifest`
 * (1.1.2, MIT; Microsoft's Agents Toolkit publishes it), which carries Microsoft's Teams manifest
 * schemas 1.0–1.30. The package is not a dependency of ours — it would add ajv 8, node-fetch 3 and
 * more for one file — so that one file is kept byte for byte as
 * `test/fixtures/teams/MicrosoftTeams.v1.24.schema.json` (its `build/json-schemas/teams/v1.24/
 * MicrosoftTeams.schema.json`; sha256 768bf3055bb335c225e1a8fe4d3071dc02d1d499a8fc0dc07570b6858443441e).
 * It is read with zod's JSON Schema reader (`z.fromJSONSchema`), once its local `$ref`s are inlined:
 * zod resolves only `#/definitions/…`, the schema also points into its own properties. zod does not
 * enforce draft-04 `dependencies`, which the schema uses only inside static tabs (the app has none);
 * the refusals below show the rest is enforced.
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fillManifest, manifestValues, type ManifestValues } from '../../scripts/teams-manifest.js';
import { ICONS, iconPixels, type IconName } from '../../scripts/teams-icons.js';
import { intentOf } from '../../src/core/intake/keywords.js';
import { messageTrigger, whereOf } from '../../src/teams/normalise.js';
import { parseActivity, type MessageActivity } from '../../src/teams/parse-activity.js';
import { channelMention, groupChatMention, personalMessage, TEAMS_BOT, TEAMS_IDS, threadReply, type TeamsActivity } from '../fixtures/teams/index.js';
import { ROOT } from '../helpers/spawn-cli.js';

type Json = Record<string, unknown>;

const template = readFileSync(`${ROOT}/teams-app/manifest.json`, 'utf8');
const schema = JSON.parse(readFileSync(`${ROOT}/test/fixtures/teams/MicrosoftTeams.v1.24.schema.json`, 'utf8')) as Json;

/** The schema with every local `$ref` replaced by what it points at (the schema has no cycles). */
function inlined(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(inlined);
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Json;
  if (typeof $ref === 'string') {
    const target = $ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Json)[key], schema);
    return inlined({ ...(target as Json), ...rest });
  }
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlined(value)]));
}

// Every reference is inlined, so the definitions themselves are left out: zod need not read them.
const root = Object.fromEntries(Object.entries(inlined(schema) as Json).filter(([key]) => key !== 'definitions'));
const microsoftSchema = z.fromJSONSchema(root);

const VALUES: ManifestValues = {
  TEAMS_APP_ID: '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f',
  TEAMS_CLIENT_ID: TEAMS_IDS.clientId,
  PUBLIC_URL: 'https://bridge.example.com',
  PUBLIC_HOST: 'bridge.example.com',
};
const filled = JSON.parse(fillManifest(template, VALUES)) as Json;
const bot = (filled['bots'] as Json[])[0]!;

const pixelsOf = (() => {
  const drawn = new Map<IconName, Uint8Array>();
  return (name: IconName) => drawn.get(name) ?? drawn.set(name, iconPixels(name)).get(name)!;
})();

const problemsOf = (manifest: unknown) => {
  const result = microsoftSchema.safeParse(manifest);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
};

describe('teams-app/manifest.json against Microsoft’s schema 1.24', () => {
  it('names the schema it is written to, and is that version', () => {
    expect(filled['$schema']).toBe('https://developer.microsoft.com/json-schemas/teams/v1.24/MicrosoftTeams.schema.json');
    expect(filled['manifestVersion']).toBe(((schema['properties'] as Json)['manifestVersion'] as Json)['const']);
  });

  it('has exactly the placeholders the doc and the script fill', () => {
    expect([...new Set(template.match(/\{\{[A-Z_]+\}\}/g))].sort()).toEqual(['{{PUBLIC_HOST}}', '{{PUBLIC_URL}}', '{{TEAMS_APP_ID}}', '{{TEAMS_CLIENT_ID}}']);
  });

  it('filled in as the script fills it from TEAMS_CLIENT_ID and PUBLIC_URL, is valid', () => {
    expect(manifestValues({ TEAMS_CLIENT_ID: TEAMS_IDS.clientId, PUBLIC_URL: 'https://bridge.example.com/' }, VALUES.TEAMS_APP_ID)).toEqual({ values: VALUES });
    expect(problemsOf(filled)).toEqual([]);
  });

  it('the schema as read refuses what Teams would: an unknown key, a scope Teams lacks, a bot id that is no GUID, two bots, a placeholder left', () => {
    expect(problemsOf({ ...filled, channels: [] })).not.toEqual([]);
    expect(problemsOf({ ...filled, bots: [{ ...bot, scopes: ['channel'] }] })).toContain('bots.0.scopes.0');
    expect(problemsOf({ ...filled, bots: [{ ...bot, botId: '28:abc' }] })).toContain('bots.0.botId');
    expect(problemsOf({ ...filled, bots: [bot, bot] })).toContain('bots');
    expect(problemsOf(JSON.parse(template))).toContain('id');
  });
});

describe('what the manifest says, against the code', () => {
  it('the bot is the service’s Entra app, in every scope, on the public host', () => {
    expect(filled['id']).toBe(VALUES.TEAMS_APP_ID);
    expect(bot['botId']).toBe(TEAMS_IDS.clientId);
    expect(filled['webApplicationInfo']).toEqual({ id: TEAMS_IDS.clientId, resource: `api://bridge.example.com/${TEAMS_IDS.clientId}` });
    expect(filled['validDomains']).toEqual(['bridge.example.com']);
    expect(bot['scopes']).toEqual(['personal', 'team', 'groupChat']);
    expect(bot['isNotificationOnly']).toBe(false);
  });

  // Each scope is a kind of conversation the edge tells apart, where a message to the bot starts a run.
  it.each([
    ['personal', 'personal', personalMessage()],
    ['team', 'channel', channelMention()],
    ['groupChat', 'groupChat', groupChatMention()],
  ] as const)('scope %s: a message to the bot there is read as a %s conversation and starts a run', (_scope, kind, activity) => {
    const message = read(activity);
    expect(whereOf(message).kind).toBe(kind);
    expect(triggerOf(message, 'mentions', false)).toMatchObject({ kind: 'start', source: 'teams' });
  });

  it('asks the RSC permissions that let a run’s thread reach it without a mention (followups: all), and no others', () => {
    expect((filled['authorization'] as Json)['permissions']).toEqual({
      resourceSpecific: [
        { name: 'ChannelMessage.Read.Group', type: 'Application' },
        { name: 'ChatMessage.Read.Chat', type: 'Application' },
      ],
    });
    // Teams delivers such a reply only under ChannelMessage.Read.Group (ChatMessage.Read.Chat in a group chat).
    const reply = read(threadReply({ rootId: '1750000000000', mention: false, text: 'also check the retry path' }));
    expect(reply.mentionedIds).not.toContain(TEAMS_BOT.id);
    expect(triggerOf(reply, 'all', true)).toMatchObject({ kind: 'followup', payload: { message: 'also check the retry path' } });
    expect(triggerOf(reply, 'mentions', true)).toBeUndefined();
    const chatMessage = read(groupChatMention({ overrides: { text: 'and the docs', entities: [] } }));
    expect(triggerOf(chatMessage, 'all', true)).toMatchObject({ kind: 'followup', payload: { message: 'and the docs' } });
  });

  it('its commands are what the edge understands: a request, new and stop, in the bot’s scopes', () => {
    const lists = bot['commandLists'] as Array<{ scopes: string[]; commands: Array<{ title: string }> }>;
    for (const list of lists) expect(bot['scopes']).toEqual(expect.arrayContaining(list.scopes));
    const kinds = lists.flatMap((list) => list.commands.map((command) => intentOf(`${command.title} and more`).kind));
    expect(kinds).toEqual(['request', 'new', 'stop']);
  });
});

describe('the icons', () => {
  it.each(Object.entries(ICONS) as Array<[IconName, number]>)('%s is a %i-pixel square RGBA PNG holding what scripts/teams-icons.ts draws', (name, side) => {
    const image = readPng(readFileSync(`${ROOT}/teams-app/${name}`));
    expect({ width: image.width, height: image.height, depth: image.depth, colourType: image.colourType }).toEqual({
      width: side,
      height: side,
      depth: 8,
      colourType: 6,
    });
    expect(Buffer.from(image.pixels).equals(Buffer.from(pixelsOf(name)))).toBe(true);
  });

  it('the outline is white on transparent; the colour icon is opaque, with white on it', () => {
    const outline = pixelsOf('outline.png');
    const alphas = [...outline.keys()].filter((at) => at % 4 === 3).map((at) => outline[at]!);
    expect([...outline.keys()].filter((at) => at % 4 !== 3 && outline[at] !== 255)).toEqual([]);
    expect(alphas.filter((alpha) => alpha === 255).length).toBeGreaterThan(100);
    expect([alphas[0], alphas[31], alphas[32 * 31], alphas[32 * 32 - 1]]).toEqual([0, 0, 0, 0]);
    const colour = pixelsOf('color.png');
    expect([...colour.keys()].filter((at) => at % 4 === 3 && colour[at] !== 255)).toEqual([]);
    expect([...colour.keys()].some((at) => at % 4 === 0 && colour[at] === 255 && colour[at + 1] === 255 && colour[at + 2] === 255)).toBe(true);
  });
});

/** An activity as the edge reads it once its token vouched for it. */
function read(activity: TeamsActivity): MessageActivity {
  const parsed = parseActivity(JSON.stringify(activity), { claims: { serviceurl: activity.serviceUrl } }, []);
  const value = parsed.ok && 'value' in parsed ? parsed.value : undefined;
  if (!value || 'unauthorised' in value || value.type !== 'message') throw new Error('not a message the edge reads');
  return value;
}

function triggerOf(message: MessageActivity, followups: 'all' | 'mentions', hasActiveRun: boolean) {
  const result = messageTrigger(message, { botId: TEAMS_BOT.id, botName: TEAMS_BOT.name, tenantId: TEAMS_IDS.tenant, followups, key: 'k' }, hasActiveRun);
  return 'trigger' in result ? result.trigger : undefined;
}

/** A PNG's header and pixels; every row must be unfiltered, as the icons are written. */
function readPng(file: Buffer): { width: number; height: number; depth: number; colourType: number; pixels: Uint8Array } {
  expect(file.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  const chunks: Array<{ type: string; data: Buffer }> = [];
  for (let at = 8; at < file.length;) {
    const length = file.readUInt32BE(at);
    chunks.push({ type: file.toString('latin1', at + 4, at + 8), data: file.subarray(at + 8, at + 8 + length) });
    at += length + 12;
  }
  const header = chunks[0]!.data;
  const width = header.readUInt32BE(0);
  const rows = inflateSync(Buffer.concat(chunks.filter((chunk) => chunk.type === 'IDAT').map((chunk) => chunk.data)));
  const pixels = new Uint8Array(width * header.readUInt32BE(4) * 4);
  for (let y = 0; y < header.readUInt32BE(4); y++) {
    expect(rows[y * (width * 4 + 1)]).toBe(0);
    pixels.set(rows.subarray(y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1)), y * width * 4);
  }
  return { width, height: header.readUInt32BE(4), depth: header[8]!, colourType: header[9]!, pixels };
}

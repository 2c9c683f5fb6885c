/**
 * The Teams app's two icons (docs/teams.md): `color.png`, 192×192, a white bridge on the app's accent
 * colour, and `outline.png`, 32×32, the same bridge in white on transparent — the sizes and colours
 * Teams asks of an app's icons. Drawn here rather than in an editor, so that they can be made again
 * exactly; `teams-app/` holds the files this writes.
 *
 *   npx tsx scripts/teams-icons.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';

/** The manifest's `accentColor` (#4F46E5), the colour icon's background. */
export const ACCENT: readonly [number, number, number] = [0x4f, 0x46, 0xe5];

/** The icons as Teams names them in the manifest, each with its side in pixels. */
export const ICONS = { 'color.png': 192, 'outline.png': 32 } as const;
export type IconName = keyof typeof ICONS;

const SAMPLES = 4;

/** Whether the point (x, y) of the unit square (y downwards) is on the bridge: a deck, an arch, three hangers and two piers. */
function onBridge(x: number, y: number): boolean {
  const deck = x >= 0.06 && x <= 0.94 && y >= 0.54 && y <= 0.64;
  const r = Math.hypot(x - 0.5, y - 0.59);
  const arch = y <= 0.59 && r >= 0.3 && r <= 0.4;
  const hanger = [0.3, 0.5, 0.7].some((at) => Math.abs(x - at) <= 0.03) && y <= 0.54 && r <= 0.3;
  const pier = (Math.abs(x - 0.16) <= 0.05 || Math.abs(x - 0.84) <= 0.05) && y >= 0.64 && y <= 0.82;
  return deck || arch || hanger || pier;
}

/** How much of a pixel the bridge covers (0–1), the bridge drawn in the square [from, to] of the picture's unit square. */
function coverage(px: number, py: number, side: number, from: number, to: number): number {
  let inside = 0;
  for (let sy = 0; sy < SAMPLES; sy++)
    for (let sx = 0; sx < SAMPLES; sx++) {
      const x = ((px + (sx + 0.5) / SAMPLES) / side - from) / (to - from);
      const y = ((py + (sy + 0.5) / SAMPLES) / side - from) / (to - from);
      if (onBridge(x, y)) inside++;
    }
  return inside / (SAMPLES * SAMPLES);
}

/** An icon's pixels, RGBA row by row: white over the accent colour, or white on transparent for the outline. */
export function iconPixels(name: IconName): Uint8Array {
  const side = ICONS[name];
  const pixels = new Uint8Array(side * side * 4);
  for (let py = 0; py < side; py++)
    for (let px = 0; px < side; px++) {
      const at = (py * side + px) * 4;
      if (name === 'outline.png') {
        pixels.set([255, 255, 255, Math.round(255 * coverage(px, py, side, 1 / 32, 31 / 32))], at);
      } else {
        const white = coverage(px, py, side, 0.2, 0.8);
        pixels.set([...ACCENT.map((channel) => Math.round(channel + (255 - channel) * white)), 255], at);
      }
    }
  return pixels;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(typed.length + 8);
  out.writeUInt32BE(data.length, 0);
  typed.copy(out, 4);
  out.writeUInt32BE(crc32(typed), typed.length + 4);
  return out;
}

/** A PNG of 8-bit RGBA pixels, every row unfiltered (filter type 0). */
export function encodePng(side: number, rgba: Uint8Array): Buffer {
  const stride = side * 4;
  const rows = Buffer.alloc((stride + 1) * side);
  for (let y = 0; y < side; y++) rows.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bits per channel
  header[9] = 6; // colour type: RGBA
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(ICONS) as IconName[]) {
    writeFileSync(new URL(`../teams-app/${name}`, import.meta.url), encodePng(ICONS[name], iconPixels(name)));
  }
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GITHUB_EVENTS } from '../../src/github/parse-webhook.js';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'github-app-manifest.json'), 'utf8')) as {
  name: string;
  hook_attributes: { url: string; active: boolean };
  public: boolean;
  default_permissions: Record<string, string>;
  default_events: string[];
};

describe('github-app-manifest.json (GitHub’s app manifest, docs/github.md)', () => {
  it('subscribes to exactly the events the webhook parses', () => {
    expect([...manifest.default_events].sort()).toEqual([...GITHUB_EVENTS].sort());
  });

  it('asks for issues and pull requests write, checks and metadata read, and nothing else', () => {
    expect(manifest.default_permissions).toEqual({ issues: 'write', pull_requests: 'write', checks: 'read', metadata: 'read' });
  });

  it('points its webhook at /github/webhook, active, and is private to its owner', () => {
    expect(new URL(manifest.hook_attributes.url).pathname).toBe('/github/webhook');
    expect(manifest.hook_attributes.active).toBe(true);
    expect(manifest.public).toBe(false);
    expect(manifest.name.length).toBeLessThanOrEqual(34);
  });
});

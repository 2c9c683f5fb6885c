import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/spawn-cli.js';

interface Manifest {
  features: { slash_commands: Array<{ command: string; url: string }> };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { request_url: string; bot_events: string[] }; interactivity: { is_enabled: boolean; request_url: string } };
}

describe('manifest.yml', () => {
  const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8')) as Manifest;

  it('asks for exactly the scopes the service uses', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(
      [
        'app_mentions:read',
        'channels:history',
        'channels:read',
        'chat:write',
        'commands',
        'groups:history',
        'im:history',
        'reactions:write',
        'users:read',
      ].sort(),
    );
  });

  it('subscribes to the events the listeners handle', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(['app_mention', 'message.channels', 'message.groups', 'message.im']);
  });

  it('sends events, interactivity and /agent to the one route', () => {
    const urls = [manifest.settings.event_subscriptions.request_url, manifest.settings.interactivity.request_url, manifest.features.slash_commands[0]?.url];
    expect(urls.every((url) => url?.endsWith('/slack/events'))).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.slash_commands.map((command) => command.command)).toEqual(['/agent']);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/spawn-cli.js';

interface Manifest {
  features: {
    slash_commands: Array<{ command: string; url: string }>;
    app_home: { home_tab_enabled: boolean; messages_tab_enabled: boolean };
    shortcuts: Array<{ type: string; callback_id: string }>;
    agent_view?: { agent_description: string };
    assistant_view?: unknown;
    unfurl_domains: string[];
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { request_url: string; bot_events: string[] }; interactivity: { is_enabled: boolean; request_url: string } };
}

describe('manifest.yml', () => {
  const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8')) as Manifest;

  it('asks for exactly the scopes the service uses', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(
      [
        'app_mentions:read',
        'assistant:write',
        'channels:history',
        'channels:read',
        'chat:write',
        'commands',
        'groups:history',
        'im:history',
        'links:read',
        'links:write',
        'reactions:read',
        'reactions:write',
        'users:read',
        'users:read.email',
      ].sort(),
    );
  });

  it('subscribes to the events the listeners handle', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([
      'agent_session_stopped',
      'app_context_changed',
      'app_home_opened',
      'app_mention',
      'link_shared',
      'message.channels',
      'message.groups',
      'message.im',
      'reaction_added',
    ]);
  });

  it('turns on Slack’s own places: the Home tab, the Send to agent shortcut, the agent messaging experience and link previews', () => {
    expect(manifest.features.app_home).toMatchObject({ home_tab_enabled: true, messages_tab_enabled: true });
    expect(manifest.features.shortcuts).toEqual([expect.objectContaining({ type: 'message', callback_id: 'send_to_agent' })]);
    expect(manifest.features.unfurl_domains.length).toBeGreaterThan(0);
  });

  // New Slack apps can only use agent_view; assistant_view is for apps created before it (and
  // its assistant_thread_* events come only with it). Slack allows an agent description of 300 characters.
  it('asks for Slack’s agent messaging experience as a new app can have it: agent_view with a description, no assistant_view', () => {
    const description = manifest.features.agent_view?.agent_description ?? '';
    expect(description.trim().length).toBeGreaterThan(0);
    expect(description.length).toBeLessThanOrEqual(300);
    expect(manifest.features.assistant_view).toBeUndefined();
    expect(manifest.settings.event_subscriptions.bot_events.filter((event) => event.startsWith('assistant_thread_'))).toEqual([]);
    // Slack's stop button appears only for an app subscribed to agent_session_stopped.
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(['agent_session_stopped', 'app_context_changed', 'app_home_opened']),
    );
    // agents.sessions.setStatus needs chat:write; suggested prompts need assistant:write (added by declaring the agent).
    expect(manifest.oauth_config.scopes.bot).toEqual(expect.arrayContaining(['chat:write', 'assistant:write']));
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
  });

  it('sends events, interactivity and /agent to the one route', () => {
    const urls = [manifest.settings.event_subscriptions.request_url, manifest.settings.interactivity.request_url, manifest.features.slash_commands[0]?.url];
    expect(urls.every((url) => url?.endsWith('/slack/events'))).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.slash_commands.map((command) => command.command)).toEqual(['/agent']);
  });

  it('has what Sign in with Slack needs: the openid and profile user scopes and the console’s redirect URL', () => {
    const oauth = manifest.oauth_config as { scopes: { user?: string[] }; redirect_urls?: string[] };
    expect(oauth.scopes.user).toEqual(['openid', 'profile']);
    expect(oauth.redirect_urls).toEqual([expect.stringMatching(/^https:\/\/[^/]+\/console\/auth\/slack\/callback$/)]);
  });
});

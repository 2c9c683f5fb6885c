import type { TrackedRun } from '../core/ports/store.js';
import type { Requester } from '../core/ports/triggers.js';

/**
 * Who may stop a run by naming it (`/agent cancel <run-id>`, which works from any channel): someone
 * asking from a channel the run reports in, the person who started it, or an admin
 * (`console.admins`). The Cancel button and `@agent stop` are in the run's own thread already.
 */
export type CancelGrant = 'here' | 'starter' | 'admin';

/** The Slack channels a run reports in: those of its anchor and destinations (`slack:<channel>[:<ts>]`). */
export function runChannels(run: Pick<TrackedRun, 'anchor' | 'destinations'>): string[] {
  const channels = new Set<string>();
  for (const place of [run.anchor, ...run.destinations]) {
    const channel = /^slack:([A-Z0-9]+)(?::|$)/i.exec(place)?.[1];
    if (channel) channels.add(channel);
  }
  return [...channels];
}

/** Who asked for the run, from the trigger that started it (as its edge stored it). */
export function starterOf(trigger: { payload: unknown } | undefined): Requester | undefined {
  const requester = (trigger?.payload as { requester?: Partial<Requester> } | undefined)?.requester;
  if (typeof requester?.platform !== 'string' || typeof requester.id !== 'string') return undefined;
  return { platform: requester.platform, id: requester.id, ...(typeof requester.name === 'string' && { name: requester.name }) };
}

/** Why `user`, asking in `channel`, may stop the run; undefined when they may not. */
export function cancelGrant(
  ask: { user: string; channel: string },
  run: Pick<TrackedRun, 'anchor' | 'destinations'>,
  starter: Requester | undefined,
  admins: readonly string[],
): CancelGrant | undefined {
  if (runChannels(run).includes(ask.channel)) return 'here';
  if (starter?.platform === 'slack' && starter.id === ask.user) return 'starter';
  if (admins.includes(ask.user)) return 'admin';
  return undefined;
}

/** The private answer to someone who may not stop the run: who may, and where. */
export function cancelRefusal(runId: string, run: Pick<TrackedRun, 'anchor' | 'destinations'>, starter: Requester | undefined): string {
  const channels = runChannels(run).map((channel) => `<#${channel}>`);
  const where = channels.length > 0 ? `from its channel (${channels.join(', ')})` : 'from its own thread';
  const who = starter?.platform === 'slack' ? ` (<@${starter.id}>)` : '';
  return `You cannot stop \`${runId}\` from here. A run can be stopped ${where}, by the person who started it${who}, or by an admin (console.admins). Nothing was changed.`;
}

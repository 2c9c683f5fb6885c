import type { SlackCalls } from './slack-calls.js';
import type { Delivery, Notifier } from '../core/ports/notifier.js';
import type { TrackedRun, TrackedRunRepository, TriggerRepository } from '../core/ports/store.js';
import type { NewOutboxRow } from '../core/ports/store.js';
import type { Requester } from '../core/ports/triggers.js';
import { runChannels, starterOf } from './cancel-permission.js';
import { runLine } from './home-view.js';
import { toNotifierError } from './slack-errors.js';

/** The outbox row kind of a link preview owed for a `link_shared` event. */
export const UNFURL_KIND = 'unfurl';
/** At most this many links of one message are looked up (Slack sends each link once per message). */
export const UNFURL_LINKS = 5;

/** What a preview needs: the message (or composer draft) the links are in, who pasted them, and the links. */
export interface UnfurlRequest {
  kind: typeof UNFURL_KIND;
  channel: string;
  ts: string;
  /** The Slack user who pasted the links (absent in rows owed before it was kept: places alone decide then). */
  user?: string;
  unfurlId?: string;
  source?: string;
  links: string[];
}

const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 3000;

/** Whether `host` is one of the domains or a subdomain of one (Slack's own rule for app unfurl domains). */
export function inDomains(host: string, domains: readonly string[]): boolean {
  const lower = host.toLowerCase();
  return domains.some((domain) => lower === domain || lower.endsWith(`.${domain}`));
}

/**
 * The preview owed for a `link_shared` event, or undefined when none of its links is on one of
 * `slack.unfurl_domains` (or the event is not shaped as Slack's). Keyed by the message, so a
 * redelivered event owes nothing more.
 */
export function unfurlRow(event: Record<string, unknown>, domains: readonly string[]): NewOutboxRow | undefined {
  const { channel, message_ts: ts, user, unfurl_id: unfurlId, source, links } = event;
  if (domains.length === 0 || !text(channel) || !text(ts) || !Array.isArray(links)) return undefined;
  const urls = links
    .flatMap((link: unknown) => {
      const { domain, url } = (typeof link === 'object' && link !== null ? link : {}) as Record<string, unknown>;
      return text(url) && text(domain) && inDomains(domain, domains) ? [url] : [];
    })
    .slice(0, UNFURL_LINKS);
  if (urls.length === 0) return undefined;
  const request: UnfurlRequest = {
    kind: UNFURL_KIND,
    channel,
    ts,
    ...(text(user) && { user }),
    ...(text(unfurlId) && { unfurlId }),
    ...(text(source) && { source }),
    links: [...new Set(urls)],
  };
  return { key: `unfurl:${text(unfurlId) ? unfurlId : `${channel}:${ts}`}`, destination: `slack:unfurl:${channel}`, kind: UNFURL_KIND, payload: request };
}

/**
 * Whether a run's preview may be shown where its link was pasted: the preview reaches everyone in that
 * conversation, so only where the run may already be seen — a channel it reports in (`runChannels`), or
 * anywhere when the person who pasted it is the one who started it (or whose key created it). A direct
 * message is one person's: there, only the run's starter gets a preview.
 */
export function mayUnfurl(
  pasted: { channel: string; user?: string },
  run: Pick<TrackedRun, 'anchor' | 'destinations' | 'personalKeyOwner'>,
  starter: Requester | undefined,
): boolean {
  if (pasted.user !== undefined && (run.personalKeyOwner === pasted.user || (starter?.platform === 'slack' && starter.id === pasted.user))) return true;
  return !pasted.channel.startsWith('D') && runChannels(run).includes(pasted.channel);
}

/**
 * Unfurls session links of our runs (`slack:unfurl:<channel>` destinations) with `chat.unfurl`:
 * each link found as a run's session link shows the run's title, state and where it was asked, when
 * the run may be seen where it was pasted (`mayUnfurl`). Other links are left as Slack shows them.
 */
export class UnfurlNotifier implements Notifier {
  readonly platform = 'slack';

  constructor(
    private readonly deps: {
      client: SlackCalls;
      runs: Pick<TrackedRunRepository, 'findBySessionLink'>;
      /** Who started a run (its starting trigger's requester). */
      triggers: Pick<TriggerRepository, 'getByKey'>;
    },
  ) {}

  /** The run whose session link this is, when it may be previewed where it was pasted. */
  private async visibleRun(link: string, request: UnfurlRequest): Promise<TrackedRun | undefined> {
    const run = (await this.deps.runs.findBySessionLink(link)) ?? (await this.deps.runs.findBySessionLink(link.replace(/\/$/, '')));
    if (!run) return undefined;
    const pasted = { channel: request.channel, ...(typeof request.user === 'string' && { user: request.user }) };
    // The starter is read only when the channel alone does not decide.
    if (mayUnfurl(pasted, run, undefined)) return run;
    if (pasted.user === undefined || !run.triggerKey) return undefined;
    return mayUnfurl(pasted, run, starterOf(await this.deps.triggers.getByKey(run.triggerKey))) ? run : undefined;
  }

  async deliver(delivery: Delivery): Promise<unknown> {
    const request = delivery.message as unknown as UnfurlRequest;
    if (request.kind !== UNFURL_KIND || !Array.isArray(request.links)) return { unfurled: 0 };
    const unfurls: Record<string, { blocks: unknown[] }> = {};
    for (const link of request.links.slice(0, UNFURL_LINKS)) {
      const run = await this.visibleRun(link, request);
      if (run) unfurls[link] = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: runLine(run) } }] };
    }
    const count = Object.keys(unfurls).length;
    if (count === 0) return { unfurled: 0 };
    const where = request.unfurlId && request.source ? { unfurl_id: request.unfurlId, source: request.source } : { channel: request.channel, ts: request.ts };
    try {
      await this.deps.client.chat.unfurl({ ...where, unfurls } as Parameters<SlackCalls['chat']['unfurl']>[0]);
    } catch (error) {
      throw toNotifierError(error, 'chat.unfurl');
    }
    return { unfurled: count };
  }
}

import type { SlackCalls } from './slack-calls.js';
import type { AccessPolicy } from '../core/ports/intake.js';
import type { Delivery, Notifier } from '../core/ports/notifier.js';
import { NotifierError } from '../core/ports/notifier.js';
import type {
  OperatorRepository,
  OutboxRepository,
  PersonKeyRepository,
  SettingRepository,
  TrackedRunRepository,
  UsageRepository,
} from '../core/ports/store.js';
import { ownUsage } from '../core/usage/usage-report.js';
import { keyRefusal } from '../people/key-refusals.js';
import { HOME_RUNS, homeUserOf, homeView, type HomeKeyStatus } from './home-view.js';
import { toNotifierError } from './slack-errors.js';

/** The outbox row kind that (re)publishes a Home tab without a run change: the tab was opened. */
export const HOME_OPENED_KIND = 'home_opened';

/** Kinds after which a Home tab is published: a run's state changed, or the person opened the tab. */
const PUBLISHED_ON: ReadonlySet<string> = new Set(['status', HOME_OPENED_KIND]);

/**
 * Publishes a person's Home tab (`slack:home:<user>` destinations) with `views.publish`. It renders
 * from the store at delivery, so a row owed for any change publishes the latest state; publishing is
 * idempotent, so a redelivered row costs a call but shows nothing twice. Rows of other kinds (the
 * announcement that follows a status, a received request) publish nothing. An opening also makes the
 * tab a place of the person's unfinished runs asked for before they first opened it (`keepCurrent`).
 */
export class HomeNotifier implements Notifier {
  readonly platform = 'slack';

  constructor(
    private readonly deps: {
      client: SlackCalls;
      runs: Pick<OperatorRepository, 'listRuns'>;
      /** To make the tab a place of runs asked for before it was first opened. */
      trackedRuns: Pick<TrackedRunRepository, 'addDestination'>;
      access: AccessPolicy;
      /** To see whether a later publish is already owed (this one is then left to it). */
      outbox: Pick<OutboxRepository, 'list'>;
      /** `people.attribution` and the stored keys, for the key line; absent: no key line. */
      keys?: { attribution: string; personKeys: Pick<PersonKeyRepository, 'get'>; settings?: SettingRepository };
      /** The person's own usage of the last 30 days; absent: no usage line. */
      usage?: Pick<UsageRepository, 'sums'>;
      now?: () => number;
    },
  ) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const user = homeUserOf(delivery.destination);
    if (!user) throw new NotifierError(`not a Home destination: ${delivery.destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
    const kind = (delivery.message as { kind: string }).kind;
    if (!PUBLISHED_ON.has(kind)) return { published: false };
    const refusal = this.deps.access.deny({ source: 'slack', payload: { requester: { platform: 'slack', id: user } } });
    // Before the coalescing below: an opening followed by a change still keeps the older runs current.
    if (kind === HOME_OPENED_KIND && refusal === undefined) await this.keepCurrent(user, delivery.destination);
    // Rows of one destination go out in order, so a pending one is later and renders the same store:
    // a burst of changes costs one publish, not one each.
    const later = await this.deps.outbox.list({ destination: delivery.destination, state: 'pending' });
    if (later.some((row) => PUBLISHED_ON.has(row.kind))) return { published: false, coalesced: true };
    // Read after keepCurrent: a change recorded before a run had the tab as a place is shown now; one after owes a publish.
    const runs = refusal === undefined ? await this.recentRuns(user) : [];
    const keyStatus = refusal === undefined ? await this.keyStatus(user) : undefined;
    const usage = refusal === undefined && this.deps.usage ? (await ownUsage(this.deps.usage, user, (this.deps.now ?? Date.now)())).total : undefined;
    try {
      await this.deps.client.views.publish({ user_id: user, view: homeView(runs, refusal, keyStatus, usage) });
    } catch (error) {
      throw toNotifierError(error, 'views.publish');
    }
    return { published: true, runs: runs.length };
  }

  /**
   * Makes the tab one of the places of the person's unfinished runs it lists that lack it — runs asked
   * for before they first opened it (a run asked for since carries it from its start: `withHome` in
   * listeners.ts) — so that every later state change of theirs owes a publish too, through the outbox.
   */
  private async keepCurrent(user: string, destination: string): Promise<void> {
    const behind = (await this.recentRuns(user)).filter((run) => run.tracked && !run.destinations.includes(destination));
    const now = this.deps.now ?? Date.now;
    for (const run of behind) await this.deps.trackedRuns.addDestination(run.runId, destination, now());
  }

  /** What the Home tab may say of the person's key: its last 4 characters and times, never the sealed key. */
  private async keyStatus(user: string): Promise<HomeKeyStatus | undefined> {
    const keys = this.deps.keys;
    if (!keys) return undefined;
    const record = await keys.personKeys.get(user);
    const refused = record && keys.settings ? await keyRefusal(keys.settings, user, record.connectedAt) : undefined;
    return {
      attribution: keys.attribution,
      key: record && { lastFour: record.lastFour, connectedAt: record.connectedAt, lastUsedAt: record.lastUsedAt },
      ...(refused && { refused }),
    };
  }

  /** The person's runs asked from Slack, newest first (the `person` filter also matches names: keep exact ids only). */
  private async recentRuns(user: string) {
    const runs = await this.deps.runs.listRuns({ person: user, source: 'slack', limit: HOME_RUNS * 2 });
    return runs.filter((run) => run.requester.id === user).slice(0, HOME_RUNS);
  }
}

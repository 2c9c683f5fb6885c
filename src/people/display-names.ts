/**
 * People's display names for the console, so that it shows who each run belongs to: a chat requester
 * is stored as its user id, so the name is asked of the person's chat surface and kept in memory for a
 * while. A page never waits long for it: what is not known in time shows as the id, and the answer is
 * there for the next page.
 */
import type { Clock } from '../core/ports/clock.js';

/** Names by person id; an id missing from the answer has no known name (yet). */
export interface DisplayNames {
  of(ids: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /**
   * The ids whose known name contains `text` (case-insensitive), at most `limit`: only names already
   * asked for (people a page showed), never a lookup — so the runs page's Person filter can take a name.
   */
  idsNamed(text: string, limit?: number): string[];
}

export interface CachedDisplayNamesOptions {
  /** Whether `id` is a person id, whose name may be asked; other ids (a tracker's users) are skipped. */
  isPerson: (id: string) => boolean;
  /** The person's display name as their chat surface gives it; undefined when there is none. Throws on failure. */
  lookup: (id: string) => Promise<string | undefined>;
  clock: Pick<Clock, 'now'>;
  /** How long a found name is kept (default 1 hour) and a miss or failure (default 5 minutes). */
  ttlMs?: number;
  missTtlMs?: number;
  /** How long `of` waits for lookups before answering with what it has (default 1.5 s). */
  waitMs?: number;
  /** Lookups started by one call at most (the rest wait for a later page). Default 50. */
  maxLookups?: number;
}

interface Entry {
  name: string | undefined;
  until: number;
  pending?: Promise<void>;
}

export class CachedDisplayNames implements DisplayNames {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: CachedDisplayNamesOptions) {}

  async of(ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const now = this.options.clock.now();
    const wanted = [...new Set(ids)].filter((id) => this.options.isPerson(id));
    const waits: Array<Promise<void>> = [];
    let started = 0;
    for (const id of wanted) {
      const entry = this.entries.get(id);
      if (entry?.pending) waits.push(entry.pending);
      else if ((!entry || entry.until <= now) && started < (this.options.maxLookups ?? 50)) {
        started += 1;
        waits.push(this.look(id, entry));
      }
    }
    if (waits.length > 0) await waitAtMost(Promise.all(waits), this.options.waitMs ?? 1_500);
    const names = new Map<string, string>();
    for (const id of wanted) {
      const name = this.entries.get(id)?.name;
      if (name !== undefined) names.set(id, name);
    }
    return names;
  }

  idsNamed(text: string, limit = 100): string[] {
    const wanted = text.trim().toLocaleLowerCase();
    if (wanted === '') return [];
    const found: string[] = [];
    // A name past its time to live still names the person: it is only a hint, the runs are matched by id.
    for (const [id, entry] of this.entries) {
      if (found.length >= limit) break;
      if (entry.name?.toLocaleLowerCase().includes(wanted)) found.push(id);
    }
    return found;
  }

  private look(id: string, previous: Entry | undefined): Promise<void> {
    // A name known before stays shown while it is asked again.
    const entry: Entry = { name: previous?.name, until: previous?.until ?? 0 };
    entry.pending = this.options
      .lookup(id)
      .then(
        (name) => {
          entry.name = name ?? previous?.name;
          entry.until = this.options.clock.now() + (name === undefined ? (this.options.missTtlMs ?? 300_000) : (this.options.ttlMs ?? 3_600_000));
        },
        () => {
          entry.until = this.options.clock.now() + (this.options.missTtlMs ?? 300_000);
        },
      )
      .finally(() => delete entry.pending);
    this.entries.set(id, entry);
    return entry.pending;
  }
}

/** Resolves when `work` settles or after `ms`, whichever is first; never rejects. */
function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

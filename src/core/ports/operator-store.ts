/**
 * The parts of the `Store` port outside the run lifecycle (see `store.ts` for the rules): what the web
 * console reads and repairs (`store.operator`), and people's sealed API keys and person links.
 */
import type { OutboxRow, StoredTrigger, TrackedRun } from './store-records.js';

/** Filters of the runs page; every one optional, all of them must hold. */
export interface RunFilter {
  /** The run's source (a surface's name, `schedule`, `cli`). */
  source?: string;
  /** The last observed state, exactly (e.g. `INPROGRESS`). */
  state?: string;
  /** The `config.name` of the route the run was created with. */
  routeName?: string;
  /** Who asked: their id exactly, or part of their display name (case-insensitive). */
  person?: string;
  /**
   * With `person`: ids it stands for besides itself — the console resolves a typed user ID in
   * any case, or a display name it knows, to user ids. Who asked is then any of them as well.
   */
  personIds?: readonly string[];
  /**
   * Whose run it is, by person id exactly: they asked for it, or it runs under their key (a
   * request of theirs on another surface). The console narrows a person's view to their own runs with it.
   */
  ownedBy?: string;
  /**
   * With `ownedBy`: the person as their own chat's requests name them, where that is not the person
   * id itself — the surface and their user id there (`teams` and the object id of `teams:<oid>`).
   * Runs that user asked for are theirs too.
   */
  ownedAs?: { platform: string; id: string };
  /** Part of the title (case-insensitive for ASCII). */
  text?: string;
}

/** Where a page of runs starts: after this run in newest-first order. */
export interface RunCursor {
  createdAt: number;
  runId: string;
}

/** A run as the runs page lists it, with who asked (from the trigger that started it). */
export interface RunListItem extends TrackedRun {
  requester: { id: string | null; name: string | null };
}

/** One observed state of a run; transition 0 is the state it was stored with. */
export interface ObservedState {
  transition: number;
  state: string;
  /** The run API's `updated_at` at the time (RFC 3339), when it said. */
  serverUpdatedAt: string | null;
  /** When we observed it (epoch ms). */
  observedAt: number;
}

/**
 * What the web console reads from the store and the few repairs an operator makes there (part of the
 * `Store` port as `store.operator`; both adapters implement it and pass the contract suite).
 */
export interface OperatorRepository {
  /** Runs newest first (created, then run id, descending), `limit` of them after `after`, filtered. */
  listRuns(query: RunFilter & { limit: number; after?: RunCursor }): Promise<RunListItem[]>;
  /** Every observed state of the run, in transition order. */
  states(runId: string): Promise<ObservedState[]>;
  /** The triggers about this run (start, follow-ups, cancels) and the one with `triggerKey`, in id order. */
  triggersOfRun(runId: string, triggerKey: string | null): Promise<StoredTrigger[]>;
  /** Failed deliveries nobody dismissed, newest first. */
  failedDeliveries(limit: number): Promise<OutboxRow[]>;
  /** Failed triggers nobody dismissed, newest first. */
  failedTriggers(limit: number): Promise<StoredTrigger[]>;
  /** A failed delivery back to pending, due at once (attempts kept). False unless it was failed. */
  retryDelivery(id: number, now: number): Promise<boolean>;
  /** Hides a failed delivery from "needs attention". False unless it was failed and shown. */
  dismissDelivery(id: number, now: number): Promise<boolean>;
  /**
   * A failed trigger back to pending, due at once (one more attempt once its retry window is over; a
   * create that may have happened is still looked for first). False unless it was failed.
   */
  retryTrigger(id: number, now: number): Promise<boolean>;
  /** Hides a failed trigger from "needs attention". False unless it was failed and shown. */
  dismissTrigger(id: number, now: number): Promise<boolean>;
}

/** A person's connected API key as stored: sealed (never the key itself) and what people may see of it. */
export interface PersonKeyRecord {
  /** The person: their person id (a chat user id). */
  personId: string;
  /** The key sealed by the key box (opaque to the store). */
  sealed: string;
  /** The key's last 4 characters, the only part ever shown. */
  lastFour: string;
  /** When it was connected (epoch ms). */
  connectedAt: number;
  /** When a run was last started, followed up or cancelled with it (epoch ms). */
  lastUsedAt: number | null;
}

/** People's personal API keys, sealed; the store never sees a key in the clear. */
export interface PersonKeyRepository {
  /** Stores (or replaces) the person's key; `lastUsedAt` starts empty. */
  put(record: Omit<PersonKeyRecord, 'lastUsedAt'>): Promise<void>;
  get(personId: string): Promise<PersonKeyRecord | undefined>;
  /** Removes the person's key; false when there was none. */
  remove(personId: string): Promise<boolean>;
  /** Records that the key was used at `now`. */
  touch(personId: string, now: number): Promise<void>;
  /** How many keys are stored. */
  count(): Promise<number>;
  /** Every stored key, by person id. */
  list(): Promise<PersonKeyRecord[]>;
  /**
   * Replaces the sealed text of each listed person's key in one transaction (a rotation): all or
   * nothing. Returns how many rows changed.
   */
  reseal(updates: readonly { personId: string; sealed: string }[]): Promise<number>;
}

/** How a user of another surface was found to be a person: the same verified email, or an admin's link on the console. */
export type PersonLinkHow = 'email' | 'console';

/**
 * A user of a surface without people of its own (a tracker, a code host), known to be a person: their
 * triggers belong to that person (their key, their name).
 */
export interface PersonLinkRecord {
  /** The surface's name (as its triggers carry it): a user id means something only on its surface. */
  surface: string;
  /** The user's id on that surface, as its triggers' requesters carry it. */
  userId: string;
  /** The person: their person id. */
  personId: string;
  how: PersonLinkHow;
  /** When the link was made (epoch ms). */
  linkedAt: number;
}

/**
 * The web console's sessions kept on the server: the key they are signed with when
 * AGENT_BRIDGE_SECRET is not set (generated by the first replica that needs it, shared by all), and
 * the sessions signed out before they expired, which no replica accepts again.
 */
export interface ConsoleSessionRepository {
  /**
   * The stored signing key. `candidate` is stored first when there is none (INSERT … ON CONFLICT DO
   * NOTHING, then read), so replicas starting together all get the one that was stored first.
   */
  signingKey(candidate: string, now: number): Promise<string>;
  /**
   * Ends session `sid` for every replica, until `expiresAt` (when its cookie stops working anyway);
   * ended sessions already past theirs are forgotten in the same call, so the list stays small.
   */
  end(sid: string, expiresAt: number, now: number): Promise<void>;
  /** True when session `sid` was ended. */
  isEnded(sid: string): Promise<boolean>;
}

/** Links from users of other surfaces to people; a console link outranks an email link. */
export interface PersonLinkRepository {
  /**
   * Stores a link in one statement. A `console` link replaces whatever was there; an `email` link is
   * stored only where there is none (a lookup racing an admin never undoes the admin). True when stored.
   */
  put(record: PersonLinkRecord): Promise<boolean>;
  get(surface: string, userId: string): Promise<PersonLinkRecord | undefined>;
  /** Every link, by surface and user id. */
  list(): Promise<PersonLinkRecord[]>;
  /** Removes the link; false when there was none. */
  remove(surface: string, userId: string): Promise<boolean>;
}

/**
 * What the bridge owes people, in platform-neutral terms. Every message is an outbox row before it
 * is sent; a notifier (each surface's, the log's) renders it for its destination.
 *
 * A person named in a message's text is written `<@personId>`, the bridge's neutral mention token
 * (`<@U0123ABCD>`, `<@<surface>:<id>>`): a chat whose markup it already is reads it as is, and every
 * other surface renders it (a tracker in words, through `PersonIds.describe`).
 */
import { isTerminalState } from './agent-runs.js';

/** A run as people see it in a message. */
export interface RunSnapshot {
  runId: string;
  title: string;
  state: string;
  /** The status message's text, whichever shape the API used. */
  statusText?: string;
  sessionLink?: string;
  pullRequests: string[];
  /** The request's own options as typed (`env=env_api model=model-x`), shown with the run. */
  options?: string;
}

/**
 * A link the bridge composes: a URL it holds from a verified payload of a served platform (a code
 * host's page of a review) or from the run API — never one read out of people's or the agent's text.
 * Shown as `label` where the surface can link words, else as the URL itself.
 */
export interface MessageLink {
  url: string;
  label?: string;
}

/** A piece of a notice: words (inert on every surface) or a link we compose. */
export type NoticePart = string | MessageLink;

/** The issue a run is about (e.g. `ENG-7` and its URL), shown where the run is carried elsewhere. */
export interface Ticket {
  ref?: string;
  url?: string;
  /** Where the issue lives, as people name the tracker (its surface's title); rows written before it say nothing. */
  from?: string;
}

export type OutboxMessage =
  /**
   * A request was received: acknowledge it at once (a chat: 👀 + status message; an issue: start
   * comment). `reference` is edge data to find the request again (a chat: the message to react to).
   */
  | { kind: 'received'; title: string; requester?: string; reference?: unknown; ticket?: Ticket }
  /**
   * The run's current state: edit the status message / start comment in place. `session`: the
   * session change owed at the same place with it (`foldSessionRows`), made first, as its own row
   * would have been.
   */
  | { kind: 'status'; run: RunSnapshot; receivedKey: string; session?: SessionChange }
  /**
   * Someone asked to stop the run and the run API took the cancel. Shown without a new message
   * (docs/architecture.md §6: only the CANCELLED that follows is announced): the status message / start comment
   * is edited, and where the platform allows, the comment that asked (`reference`) gets a reaction.
   */
  | { kind: 'stopping'; run: RunSnapshot; receivedKey: string; requestedBy?: string; reference?: unknown }
  /** BLOCKED or an end state: one new message per occurrence (and the end reaction where the surface reacts). */
  | { kind: 'announce'; run: RunSnapshot; receivedKey: string; cancelledBy?: string }
  /** The run could not be started or steered; `reason` says why in words, never a secret. */
  | { kind: 'failed'; title: string; reason: string; receivedKey: string }
  /** A follow-up reached the run (a chat: ✉️ reaction on the reply). */
  | { kind: 'followup_accepted'; runId: string; reference?: unknown }
  /**
   * A request was received where it was written (`reference`: the comment), before anything was done
   * with it: a surface that marks receipt (a code host's 👀) marks it now; elsewhere nothing. Owed by
   * the edge together with the trigger (`IntakeService.submit`'s `alsoOwed`).
   */
  | { kind: 'seen'; reference?: unknown }
  /**
   * A one-off note for the people in the thread or issue; with `privateTo` (a platform user id) only
   * that person sees it where the surface can speak privately (a chat's ephemeral message). `receivedKey` names
   * the run's `received` row at this destination: at a bare channel the note goes into its thread.
   * `parts`: the same note as words and links we compose (`noticeOf`), each notifier rendering a link
   * in its own syntax; `text` is its plain form, all that rows written before `parts` existed carry.
   */
  | { kind: 'notice'; text: string; parts?: NoticePart[]; privateTo?: string; receivedKey?: string }
  /**
   * The run's session changed phase, for places that show a run as a live session (a working
   * indicator and a stop control, e.g. a chat's agent sessions): owed once per phase change, only where
   * the composition root says a place shows sessions (`SessionPlaces`). `initiator` (who asked) and
   * `opening` (the run's first session row: its title belongs on the session) matter where the
   * session is created. `receivedKey` finds the thread at a bare channel.
   */
  | { kind: 'session'; phase: SessionPhase; title: string; receivedKey: string; initiator?: { platform: string; id: string }; opening?: true }
  /**
   * A request waits for approval: the question, with Approve and Reject controls (a chat's
   * buttons, `approve_run` / `reject_run`, value = `approvalId`) for the approvers. Posted where the
   * route asks (`receivedKey`: at a bare channel, in the request's thread there) and to each approver
   * directly, with `thread`: the place to link to (`receivedKey` finds its thread at a bare channel).
   */
  | {
      kind: 'approval';
      approvalId: string;
      title: string;
      requester?: string;
      route: string;
      /** Person ids who may decide. */
      approvers: string[];
      expiresAt: number;
      receivedKey?: string;
      thread?: { place: string; receivedKey?: string };
      /** Set once it was rejected or expired: no question any more, the request's status message says so. */
      outcome?: 'rejected' | 'expired';
    };

/** A session change without the place's `receivedKey`: what a `session` row says, carried by a `status` row. */
export interface SessionChange {
  phase: SessionPhase;
  title: string;
  initiator?: { platform: string; id: string };
  opening?: true;
}

/**
 * A run's session as people see it: `working` while the agent works (queued to in progress, any
 * state not known to wait or to be over), `waiting` while it waits for a person (BLOCKED), `idle` once
 * it ended or was stopped (ready for the next request in the place).
 */
export type SessionPhase = 'working' | 'waiting' | 'idle';

/** The session phase of a run in `state`. */
export function sessionPhaseOf(state: string): SessionPhase {
  if (isTerminalState(state)) return 'idle';
  return state === 'BLOCKED' ? 'waiting' : 'working';
}

export type OutboxMessageKind = OutboxMessage['kind'];

/** States announced with a new message (docs/architecture.md §6 "Announced once"); all others are edits. */
export const ANNOUNCED_STATES: ReadonlySet<string> = new Set(['BLOCKED', 'SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED']);

/** Outbox key of the `received` message of a trigger at a destination; later rows point to it. */
export function receivedKey(triggerKey: string, destination: string): string {
  return `received:${triggerKey}:${destination}`;
}

/** The trigger key inside a `received` key (the inverse of `receivedKey`), if it is one. */
export function triggerKeyOfReceivedKey(key: string, destination: string): string | undefined {
  const suffix = `:${destination}`;
  return key.startsWith('received:') && key.endsWith(suffix) ? key.slice('received:'.length, -suffix.length) : undefined;
}

/**
 * Outbox key of the session row that moves a run's session to `phase` with its transition number
 * `transition` at a destination. Whoever owes it first (the tracker recording the transition, the
 * worker that revived or stopped the run just before) owes the same key: the second is a no-op.
 */
export function sessionKey(runId: string, transition: number, destination: string, phase: SessionPhase): string {
  return `run:${runId}:${transition}:${destination}:session:${phase}`;
}

/** Outbox key of a run's transition at a destination: (run, transition number, destination, kind). */
export function transitionKey(runId: string, transition: number, destination: string, kind: 'status' | 'announce'): string {
  return `run:${runId}:${transition}:${destination}:${kind}`;
}

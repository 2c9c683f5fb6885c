import { createHash } from 'node:crypto';
import type { Ticket } from './messages.js';

/**
 * Where a request came from on a surface, as far as routing cares: the surface's name as `source` and
 * what its route resolution reads (a channel, a label), which only that surface interprets.
 */
export type SurfaceOrigin = { readonly source: string } & { readonly [detail: string]: string | undefined };

/** Where a request came from, as far as routing cares: a surface, a schedule or the CLI. */
export type Origin = { source: 'schedule'; schedule: string } | { source: 'cli' } | SurfaceOrigin;

/** Who asked, as the edge knows them. `name` is for messages ("cancelled by …"). */
export interface Requester {
  platform: string;
  id: string;
  name?: string;
  /**
   * The organisations the platform says the person belongs to, where they asked (a workspace, and
   * the organisation around it), for the edge's access policy. Empty: the platform said none; absent:
   * the edge records none (or the trigger was stored before it did).
   */
  orgs?: string[];
}

/** What a request may say of its requester beyond who they are. */
export interface RequesterToCheck {
  /**
   * The edge could not tell from the event whether `requester` may do this (a label's sender, a member
   * whose access the event does not give): the worker asks the surface's `RequesterCheck` before the
   * request does anything or owes anyone a message, so the edge itself never calls the platform.
   */
  checkRequester?: boolean;
}

/** A request to start a run. `destinations` are where its messages go (usually just the anchor). */
export interface StartPayload extends RequesterToCheck {
  prompt: string;
  title: string;
  origin: Origin;
  destinations: string[];
  requester?: Requester;
  /** For factory dispatch: the ticket the run is about (e.g. an issue). */
  ticket?: Ticket;
  /** Edge data to find the request again (a chat: the message to react to). */
  reference?: unknown;
  /**
   * The request's words are not in the trigger (a chat reaction names a message, not its text): the
   * edge's enricher reads them in the worker (`PromptEnricher.readRequest`), never in a listener.
   * Until then `prompt` and `title` only say where the request is.
   */
  requestToRead?: boolean;
  /**
   * When the anchor already has a run, send the request to it as a follow-up instead of starting
   * another (an @mention in a thread that has a run). Decided by the worker, which sees the anchor's
   * triggers in order, so a mention right after the first one cannot start a second run.
   */
  followupIfLinked?: boolean;
  /**
   * Start nothing while the anchor's current run is still active (an issue's trigger label added again,
   * or a second trigger label). The edge checks before storing; the worker checks again because two
   * such triggers can be stored before either has a run.
   */
  unlessActive?: boolean;
  /**
   * Other names of the trigger's place, tried in order when its anchor has no run (each directly, then
   * through its anchor alias). An issue is anchored by its id; its `<surface>:<identifier>` form is
   * what a schedule's `notify` names, and what runs stored before anchors used issue ids
   * (and that migration 0005 could not map) still use.
   */
  otherAnchors?: string[];
  /**
   * The request was held for approval and approved by this person (their id): it starts without being
   * held again. Set only by the approvals (`core/approvals/`), never by an edge.
   */
  approvedBy?: string;
  /**
   * The trigger whose `received` messages stand for this one's: an approved request is shown by the
   * status message (and thread) its held request already has, so nothing new is posted when it is
   * stored and its run edits what people already see. Set only by the approvals, with `approvedBy`.
   */
  receivedAs?: string;
}

/** The key of the trigger whose `received` messages a start's run edits: its own, or the one it stands for. */
export function shownAs(trigger: { key: string } & ({ kind: 'start'; payload: StartPayload } | { kind: 'followup' | 'cancel' })): string {
  return trigger.kind === 'start' ? (trigger.payload.receivedAs ?? trigger.key) : trigger.key;
}

export interface FollowupPayload extends RequesterToCheck {
  message: string;
  /**
   * A specific run (a chat's Answer button names the run it was shown for); default: the anchor's
   * current run. The edge looks it up before storing the trigger.
   */
  runId?: string;
  requester?: Requester;
  /** Edge data to find the message again (e.g. a chat message's ts for the ✉️ reaction). */
  reference?: unknown;
  /**
   * What to tell the person when the anchor has no run to send this to. Unset: say nothing (a reply in
   * a chat thread without a run is conversation); set where the message was clearly addressed to us.
   */
  noRunNotice?: string;
  /** As `StartPayload.otherAnchors`. */
  otherAnchors?: string[];
  /**
   * What kind of follow-up this is, for the run's other places ("a review requesting changes") with a
   * link to it: they are told that it came, from whom and where, never its text. Unset: "a follow-up".
   * `link` is shown as a live link, so it is only ever a URL from the platform's verified payload (the
   * comment's own `html_url`), never one read out of what people wrote.
   */
  heardAs?: { what: string; link?: string };
}

export interface CancelPayload extends RequesterToCheck {
  requester?: Requester;
  /** A specific run (e.g. `/agent cancel <run-id>`); default: the anchor's current run. */
  runId?: string;
  /** Edge data to find the request again (the comment or message that asked), for acknowledging it. */
  reference?: unknown;
  /** As `StartPayload.otherAnchors`. */
  otherAnchors?: string[];
}

export type TriggerInput =
  | { kind: 'start'; key: string; source: string; anchor: string; payload: StartPayload }
  | { kind: 'followup'; key: string; source: string; anchor: string; payload: FollowupPayload }
  | { kind: 'cancel'; key: string; source: string; anchor: string; payload: CancelPayload };

/**
 * The short reference the worker puts on the last line of every prompt: the same for every attempt
 * of one trigger, so a run created before a crash can be recognised and adopted instead of created
 * again (docs/architecture.md §5, "Exactly once").
 */
export function triggerRef(triggerKey: string): string {
  return createHash('sha256').update(triggerKey).digest('hex').slice(0, 10);
}

export function referenceLine(triggerKey: string): string {
  return `(agent-bridge ref ${triggerRef(triggerKey)})`;
}

/** The prompt as sent: the request, then the reference line. */
export function promptWithReference(prompt: string, triggerKey: string): string {
  return `${prompt.trimEnd()}\n\n${referenceLine(triggerKey)}`;
}

/** The display name of a requester for messages. */
export function requesterName(requester: Requester | undefined): string | undefined {
  if (!requester) return undefined;
  return requester.name ?? requester.id;
}

import type { IssueLinker, LinkedIssue } from '../ports/issue-links.js';
import { receivedKey, type OutboxMessage } from '../ports/messages.js';
import { anchorAliasSetting } from '../ports/setting-names.js';
import type { NewOutboxRow, Store, StoredTriggerOf } from '../ports/store.js';
import { requesterName, shownAs } from '../ports/triggers.js';
import { limitTitle } from '../title.js';
import { notice } from './intake-messages.js';
import { takeIssueStart, type StartClaim } from './issue-start-lock.js';

/*
 * Binding a request to the issue it names (a chat request naming an issue): the issue becomes another
 * place of the run — its start comment, every announced state, its comments steering the run — or,
 * when the issue already has an active run, the request joins that run instead of starting another.
 */

/** What a start request becomes once the issue it names was looked up. */
export type IssueBinding =
  /** The request starts a run that the issue carries too. */
  | { kind: 'bind'; issue: LinkedIssue }
  /** The issue already has an active run: the request is sent to it, and the thread is told which. */
  | { kind: 'join'; issue: LinkedIssue; runId: string }
  /** The issue is unknown or not ours to serve: the run starts unbound, and the thread says why. */
  | { kind: 'refused'; notice: NewOutboxRow };

/**
 * Looks up the issue a start request names, if the source links issues at all. Throws what the linker
 * throws (a passing failure: the worker retries). `currentRun` is the worker's view of an anchor's run.
 * With `claim`, a request that would start the issue's run first takes the issue's start lease, and
 * throws `IssueStartBusyError` while another request holds it (issue-start-lock.ts).
 */
export async function bindIssue(
  trigger: StoredTriggerOf<'start'>,
  linker: IssueLinker | undefined,
  store: Store,
  currentRun: (anchor: string, otherAnchors: readonly string[]) => Promise<string | undefined>,
  claim?: StartClaim,
): Promise<IssueBinding | undefined> {
  if (!linker) return undefined;
  const found = await linker.lookup(trigger.payload.prompt);
  if (!found) return undefined;
  if (found.kind === 'refused') return { kind: 'refused', notice: notice(trigger, 'issue-refused', `${found.reason} The run starts without it.`) };
  const issue = found.issue;
  const current = await currentRun(issue.anchor, issue.otherAnchors);
  const run = current ? await store.trackedRuns.get(current) : undefined;
  if (run?.tracked) return { kind: 'join', issue, runId: run.runId };
  if (claim) await takeIssueStart(store, issue.anchor, claim);
  // Before the run exists, so that a comment on the issue finds the run even if the link written
  // after the run is stored never happens (a crash in between): the thread's run is the issue's.
  await store.settings.set(anchorAliasSetting(issue.anchor), trigger.anchor);
  return { kind: 'bind', issue };
}

/**
 * The title of a run bound to an issue: the issue's (`ENG-7: …`), never the request's first line. The
 * title is shown in every place, and the request may have been made in a private place (a DM, a
 * private channel — which a chat event does not always say): nothing said there reaches the issue.
 */
export function boundTitle(issue: LinkedIssue): string {
  return limitTitle(`${issue.ref}: ${issue.title}`);
}

/** The start comment owed on the issue, edited later by the run's status rows like any `received` row. */
export function issueReceived(trigger: StoredTriggerOf<'start'>, issue: LinkedIssue, title: string): NewOutboxRow {
  const requester = requesterName(trigger.payload.requester);
  const message: OutboxMessage = { kind: 'received', title, ...(requester && { requester }) };
  return { key: receivedKey(shownAs(trigger), issue.anchor), destination: issue.anchor, kind: 'received', payload: message };
}

/** What the thread is told when its request joined the issue's active run. */
export function joinedNotice(trigger: StoredTriggerOf<'start'>, issue: LinkedIssue, runId: string): NewOutboxRow {
  return notice(
    trigger,
    'joined',
    `${issue.ref} already has an active run (${runId}): your request was sent to it as a follow-up instead of starting another. Replies here steer that run.`,
  );
}

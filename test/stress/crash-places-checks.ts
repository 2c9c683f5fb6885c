/**
 * What the crash suite with two places checks (test/stress/crash-places-scenario.ts): for every run
 * asked for in one place and carried by two — a Linear label whose route names `slack_channel`, or a
 * Slack mention naming a Linear issue — what people saw in each place, counted on the fakes' records
 * (the fake Slack API's messages and calls, the fake Linear API's comments), never on what the service
 * believes. "Once" means what it means in the Slack-only crash suite (crash-burst-checks.ts), per place:
 * one status message (Slack) or start comment (Linear), edited as often as the service likes, and one
 * new message or comment per BLOCKED and end state, in order.
 */
import { isTerminalState } from '../../src/core/ports/agent-runs.js';
import { receivedKey } from '../../src/core/ports/messages.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { threadKey } from '../../src/slack/normalise.js';
import type { FakeLinearApi, FakeLinearComment, FakeLinearIssue } from '../fakes/linear-api.js';
import type { FakeMessage, FakeSlackApi } from '../fakes/slack-api.js';
import { ANNOUNCED, announcedState, announcements, endReaction, metadataKey, type Outcome } from './crash-burst-checks.js';
import type { DeliveryReport } from './crash-harness.js';

/** One run of the scenario: asked for in Linear (a label) or in Slack (a mention naming the issue). */
export interface PlacesRun {
  index: number;
  asked: 'linear' | 'slack';
  outcome: Outcome;
  issue: FakeLinearIssue;
  /** The channel of the Slack place: the label route's `slack_channel`, or where the mention was written. */
  channel: string;
  /** The trigger's key, and the reference line its prompt carries. */
  key: string;
  reference: string;
  /** A Slack mention's ts: the thread it is carried in. */
  mentionTs?: string;
  /** The platform delivers this one twice although the first delivery was answered. */
  redelivered: boolean;
  acked: boolean;
  ackedAt?: number;
  settledAt?: number;
  delivery?: DeliveryReport;
  /** BLOCKED run driven on by the test once both places showed BLOCKED. */
  released: boolean;
}

export type EmulatorRun = ReturnType<RunningEmulator['engine']['list']>['runs'][number];

/** The run's Slack place as people see it: its status message(s) and the other posts of its thread. */
export interface SlackPlace {
  destination: string;
  statusMessages: FakeMessage[];
  /** Every post of ours in the thread but the status message. */
  posts: FakeMessage[];
}

/** The run's Linear place: its start comment(s) and the other comments of ours on the issue. */
export interface LinearPlace {
  destination: string;
  startComments: FakeLinearComment[];
  comments: FakeLinearComment[];
}

const BRAND = '**agent-bridge** ·';
/** The state an announcement comment speaks of (the same words as Slack's, render-text.ts). */
export const commentState = (comment: FakeLinearComment) => announcedState({ text: comment.body } as FakeMessage);
export const expectedEnd = (outcome: Outcome) => (outcome === 'fail' ? 'FAILED' : outcome === 'error' ? 'ERROR' : 'SUCCEEDED');

/** One look at both fakes and the emulator, read once per poll and shared by every run's checks. */
export class PlacesSnapshot {
  /** Emulator runs by the reference line in their prompt. */
  readonly runsByReference = new Map<string, EmulatorRun[]>();
  /** Our posts by channel. */
  private readonly botPosts = new Map<string, FakeMessage[]>();

  constructor(
    readonly slack: FakeSlackApi,
    readonly linear: FakeLinearApi,
    emulator: RunningEmulator,
    readonly channels: readonly string[],
  ) {
    for (const run of emulator.engine.list({ limit: 100_000 }).runs) {
      const ref = /\(agent-bridge ref [0-9a-f]+\)/.exec(run.prompt ?? '')?.[0] ?? '(none)';
      this.runsByReference.set(ref, [...(this.runsByReference.get(ref) ?? []), run]);
    }
    for (const channel of channels) {
      this.botPosts.set(
        channel,
        slack.messages(channel).filter((message) => message.bot_id !== undefined),
      );
    }
  }

  run(run: PlacesRun): EmulatorRun | undefined {
    return this.runsByReference.get(run.reference)?.[0];
  }

  /** Our top-level posts in a channel (a parent with replies carries `thread_ts` = its own ts). */
  topLevel(channel: string): FakeMessage[] {
    return (this.botPosts.get(channel) ?? []).filter((message) => message.thread_ts === undefined || message.thread_ts === message.ts);
  }

  slackPlace(run: PlacesRun): SlackPlace {
    const all = this.botPosts.get(run.channel) ?? [];
    if (run.asked === 'slack') {
      const destination = threadKey(run.channel, run.mentionTs ?? '');
      const key = receivedKey(run.key, destination);
      const thread = all.filter((message) => message.thread_ts === run.mentionTs);
      return { destination, statusMessages: thread.filter((m) => metadataKey(m) === key), posts: thread.filter((m) => metadataKey(m) !== key) };
    }
    // A Linear-asked run's Slack place is a bare channel: its status message starts the thread.
    const destination = `slack:${run.channel}`;
    const key = receivedKey(run.key, destination);
    const statusMessages = this.topLevel(run.channel).filter((message) => metadataKey(message) === key);
    const threadTs = statusMessages[0]?.ts;
    const posts = threadTs === undefined ? [] : all.filter((message) => message.thread_ts === threadTs && message.ts !== threadTs);
    return { destination, statusMessages, posts };
  }

  linearPlace(run: PlacesRun): LinearPlace {
    const ours = this.linear.comments(run.issue.id).filter((comment) => comment.user.id === 'api-user');
    return {
      destination: `linear:${run.issue.id}`,
      startComments: ours.filter((comment) => comment.body.startsWith(BRAND)),
      comments: ours.filter((comment) => !comment.body.startsWith(BRAND)),
    };
  }

  /** True once the run ended and both places show every announcement and the end (and a mention its end reaction). */
  settled(run: PlacesRun): boolean {
    const found = this.run(run);
    if (!found || !isTerminalState(found.state)) return false;
    const wanted = ANNOUNCED[run.outcome].length;
    const slack = this.slackPlace(run);
    const linear = this.linearPlace(run);
    if (announcements(slack.posts).length < wanted || linear.comments.length < wanted) return false;
    if (!JSON.stringify(slack.statusMessages[0]?.blocks ?? []).includes(found.run_id)) return false;
    if (!linear.startComments[0]?.body.includes(`**${found.state}**`)) return false;
    return run.mentionTs === undefined || this.slack.reactions(run.channel, run.mentionTs).includes(endReaction(run.outcome));
  }

  /** Whether both places announced BLOCKED (the people there were told; the test may answer). */
  blockedShown(run: PlacesRun): boolean {
    const slack = announcements(this.slackPlace(run).posts).some((post) => announcedState(post) === 'BLOCKED');
    return slack && this.linearPlace(run).comments.some((comment) => commentState(comment) === 'BLOCKED');
  }

  /** A failure message's detail: how many runs are open, with a sample of what each place shows. */
  unsettled(runs: readonly PlacesRun[]): string {
    const open = runs.filter((run) => !this.settled(run));
    const sample = open.slice(0, 3).map((run) => ({
      i: run.index,
      asked: run.asked,
      outcome: run.outcome,
      acked: run.acked,
      runs: this.runsByReference.get(run.reference)?.map((r) => r.state),
      slack: this.slackPlace(run).posts.map(metadataKey),
      linear: this.linearPlace(run).comments.map(commentState),
      start: this.linearPlace(run).startComments.map((comment) => comment.body.split('\n')[2]),
    }));
    return `${open.length} runs unsettled, e.g. ${JSON.stringify(sample)}`;
  }
}

/** What the books say of a run: the run its trigger names, the places its tracked run lists. */
export interface RunBooks {
  triggerRun: string | undefined;
  destinations: readonly string[];
}

/** Everything that differs from "one run, and in each of its two places each state once, in order" for one run. */
export function runProblems(snapshot: PlacesSnapshot, run: PlacesRun, books: RunBooks | undefined): string[] {
  const where = `run ${run.index} (asked in ${run.asked}, ${run.outcome}, ${run.issue.identifier}, ${run.channel}${run.mentionTs ? ` ${run.mentionTs}` : ''})`;
  const problems: string[] = [];
  const found = snapshot.runsByReference.get(run.reference) ?? [];
  if (found.length !== 1) problems.push(`${where}: ${found.length} runs`);
  const emulated = found[0];
  const end = expectedEnd(run.outcome);
  if (emulated && emulated.state !== end) problems.push(`${where}: run ended ${emulated.state}, expected ${end}`);
  if (emulated && books?.triggerRun !== emulated.run_id) problems.push(`${where}: trigger names run ${books?.triggerRun}, emulator has ${emulated.run_id}`);

  const slack = snapshot.slackPlace(run);
  const linear = snapshot.linearPlace(run);
  for (const destination of [slack.destination, linear.destination]) {
    if (!books?.destinations.includes(destination)) problems.push(`${where}: the tracked run does not list the place ${destination}`);
  }
  const expected = ANNOUNCED[run.outcome];

  // Slack: one status message naming the run at its end, then each BLOCKED / end once, in order.
  if (slack.statusMessages.length !== 1) problems.push(`${where}: ${slack.statusMessages.length} Slack status messages`);
  const status = JSON.stringify(slack.statusMessages[0]?.blocks ?? []);
  const endLabel = { SUCCEEDED: 'Succeeded', FAILED: 'Failed', ERROR: 'Error' }[end];
  if (slack.statusMessages[0] && !status.includes(endLabel)) problems.push(`${where}: Slack status message does not show ${endLabel}`);
  if (emulated && slack.statusMessages[0] && !status.includes(emulated.run_id))
    problems.push(`${where}: Slack status message does not name run ${emulated.run_id}`);
  const replacements = slack.posts.filter((post) => post.metadata?.event_payload['status_of'] !== undefined);
  if (replacements.length > 0) problems.push(`${where}: ${replacements.length} replacement Slack status messages`);
  const announcedInSlack = announcements(slack.posts).map(announcedState);
  if (JSON.stringify(announcedInSlack) !== JSON.stringify(expected))
    problems.push(`${where}: Slack announced ${JSON.stringify(announcedInSlack)}, expected ${JSON.stringify(expected)}`);
  if (slack.posts.length !== expected.length)
    problems.push(
      `${where}: ${slack.posts.length} posts in the Slack thread besides the status message, expected ${expected.length}: ${JSON.stringify(slack.posts.map(metadataKey))}`,
    );
  const keys = [...slack.statusMessages, ...slack.posts].map(metadataKey);
  if (new Set(keys).size !== keys.length || keys.includes(undefined))
    problems.push(`${where}: Slack posts with repeated or missing keys ${JSON.stringify(keys)}`);
  if (run.mentionTs !== undefined) {
    const reactions = snapshot.slack.reactions(run.channel, run.mentionTs);
    if (JSON.stringify(reactions) !== JSON.stringify([endReaction(run.outcome)]))
      problems.push(`${where}: reactions on the mention ${JSON.stringify(reactions)}`);
  }

  // Linear: one start comment naming the run at its end, then each BLOCKED / end once, in order.
  if (linear.startComments.length !== 1) problems.push(`${where}: ${linear.startComments.length} Linear start comments`);
  const start = linear.startComments[0]?.body ?? '';
  if (linear.startComments[0] && !start.includes(`**${end}**`))
    problems.push(`${where}: Linear start comment does not show ${end}: ${JSON.stringify(start.slice(0, 200))}`);
  if (emulated && linear.startComments[0] && !start.includes(emulated.run_id))
    problems.push(`${where}: Linear start comment does not name run ${emulated.run_id}`);
  const announcedInLinear = linear.comments.map(commentState);
  if (JSON.stringify(announcedInLinear) !== JSON.stringify(expected))
    problems.push(`${where}: Linear announced ${JSON.stringify(announcedInLinear)}, expected ${JSON.stringify(expected)}`);
  // Words written in Slack never reach the issue (docs/one-run-slack-and-linear.md): only who asked.
  if (run.asked === 'slack' && [...linear.startComments, ...linear.comments].some((comment) => comment.body.includes('stress task')))
    problems.push(`${where}: the issue shows the words of the Slack request`);
  return problems;
}

/** Problems across all runs: runs nobody asked for, posts outside a run's places. */
export function globalProblems(snapshot: PlacesSnapshot, runs: readonly PlacesRun[]): string[] {
  const problems: string[] = [];
  const total = [...snapshot.runsByReference.values()].reduce((sum, list) => sum + list.length, 0);
  if (total !== runs.length) problems.push(`${total - runs.length} runs beyond one per request`);
  const topLevel = snapshot.channels.reduce((sum, channel) => sum + snapshot.topLevel(channel).length, 0);
  const linearAsked = runs.filter((run) => run.asked === 'linear').length;
  if (topLevel !== linearAsked) problems.push(`${topLevel} top-level Slack posts, expected one per Linear-asked run (${linearAsked})`);
  const ours = snapshot.linear.comments().filter((comment) => comment.user.id === 'api-user').length;
  const expectedComments = runs.reduce((sum, run) => sum + 1 + ANNOUNCED[run.outcome].length, 0);
  if (ours !== expectedComments) problems.push(`${ours} Linear comments of ours, expected ${expectedComments}`);
  return problems;
}

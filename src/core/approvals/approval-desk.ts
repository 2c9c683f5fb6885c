/**
 * Deciding held requests (docs/approvals-and-audit.md): an approver's Approve starts
 * the request as if just asked (a new start trigger with the same request, under the requester's key,
 * marked approved so it is not held again); Reject tells the requester who rejected it; a request
 * nobody answers expires (`sweep`, driven by the injected clock) and the requester is told. Each
 * decision is one compare-and-set in the store: a double click or two approvers at once start one run.
 */
import type { IntakeService } from '../intake/intake-service.js';
import type { AuditAct } from '../ports/audit.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import { receivedKey, type OutboxMessage } from '../ports/messages.js';
import type { ApprovalRecord, ApprovalState, NewOutboxRow, Store } from '../ports/store.js';
import { requesterName, type Requester, type StartPayload, type TriggerInput } from '../ports/triggers.js';

export interface ApprovalDeskDeps {
  store: Store;
  /** Approved requests start through the front door, as if just asked. */
  intake: IntakeService;
  clock: Clock;
  logger: Logger;
  /**
   * The person id of whoever clicked: their user id on their chat surface, written as a person id
   * (`<surface>:<id>`, or bare where that chat's ids always stood bare). Approvers are person ids, so a click is compared as one.
   * Absent: the user id as it is.
   */
  personOf?: (requester: Requester) => string | undefined;
}

/** What a click on Approve or Reject came to, for the person who clicked. */
export type DecideAnswer =
  | { kind: 'unknown' }
  /** The person is not one of the approvers: nothing changed. */
  | { kind: 'not_approver'; approvers: string[] }
  /** Another decision (or the expiry) came first. */
  | { kind: 'already'; state: ApprovalState; by: string | null }
  | { kind: 'decided'; state: 'approved' | 'rejected' };

/** How many expired (or approved but not started) requests one sweep takes. */
const SWEEP_BATCH = 50;
/** An approval not handed to the intake this long after it was decided was interrupted: the sweep does it. */
const START_GRACE_MS = 60_000;

export class ApprovalDesk {
  constructor(private readonly deps: ApprovalDeskDeps) {}

  /**
   * `by` approves or rejects the held request `id` (a click at `where`, the place whose message carried
   * the buttons). Someone who may not decide, or who comes second, is told privately there.
   */
  async decide(id: string, decision: 'approve' | 'reject', by: Requester, where: string): Promise<DecideAnswer> {
    const { store, clock } = this.deps;
    const held = await store.approvals.get(id);
    if (!held) return this.tell(where, by, `approval:${id}:unknown`, 'This request is no longer waiting for approval.', { kind: 'unknown' });
    const person = this.deps.personOf?.(by) ?? by.id;
    if (!held.approvers.includes(person)) {
      const text = `Only ${held.approvers.map((approver) => `<@${approver}>`).join(', ')} may approve or reject this request.`;
      return this.tell(where, by, `approval:${id}:refused`, text, { kind: 'not_approver', approvers: held.approvers });
    }
    const now = clock.now();
    const decided = await store.approvals.decide(id, decision === 'approve' ? 'approved' : 'rejected', person, now);
    if (!decided) {
      const current = (await store.approvals.get(id)) ?? held;
      const text =
        current.state === 'expired'
          ? 'This request expired before it was decided.'
          : `This request was already ${current.state}${current.decidedBy ? ` by <@${current.decidedBy}>` : ''}.`;
      return this.tell(where, by, `approval:${id}:late`, text, { kind: 'already', state: current.state, by: current.decidedBy });
    }
    if (decided.state === 'approved') await this.start(decided, now, by);
    else
      await this.announce(
        decided,
        'request.rejected',
        `${mention(decided)}your request “${titleOf(decided)}” was rejected by ${requesterName(by) ?? by.id}.`,
        by,
        now,
      );
    return { kind: 'decided', state: decided.state === 'approved' ? 'approved' : 'rejected' };
  }

  /** Expires the held requests whose time ran out (the requester is told), and starts approved ones an interruption left. */
  async sweep(): Promise<number> {
    const { store, clock } = this.deps;
    const now = clock.now();
    const expired = await store.approvals.expireDue(now, SWEEP_BATCH);
    for (const approval of expired) {
      await this.announce(
        approval,
        'request.expired',
        `${mention(approval)}your request “${titleOf(approval)}” expired: nobody approved it in time.`,
        undefined,
        now,
      );
    }
    const interrupted = await store.approvals.approvedNotStarted(now - START_GRACE_MS, SWEEP_BATCH);
    for (const approval of interrupted) await this.start(approval, now);
    return expired.length + interrupted.length;
  }

  /** The approved request, started through the front door as if just asked (once: the trigger's key is the approval's). */
  private async start(approval: ApprovalRecord, now: number, decider?: Requester): Promise<void> {
    const original = approval.trigger;
    if (original.kind !== 'start') return;
    const by = approval.decidedBy ?? decider?.id ?? 'unknown';
    const payload: StartPayload = { ...original.payload, approvedBy: by, receivedAs: original.key };
    const trigger: TriggerInput = { ...original, key: `approved:${approval.id}`, payload };
    await this.deps.intake.submit(trigger);
    // The sweep restarting an interrupted approval knows who approved it, not where they clicked.
    const who = decider ?? { platform: original.source, id: by };
    await this.announce(approval, 'request.approved', `Approved by ${requesterName(decider) ?? `<@${by}>`}: starting.`, who, now);
    await this.deps.store.approvals.markStarted(approval.id, now);
  }

  /** Tells the request's places (and where it was asked, when elsewhere) and records the act once. */
  private async announce(approval: ApprovalRecord, act: AuditAct, text: string, by: Requester | undefined, now: number): Promise<void> {
    const original = approval.trigger;
    const places = original.kind === 'start' ? original.payload.destinations : [original.anchor];
    const phase = act.slice('request.'.length);
    const rows: NewOutboxRow[] = places.map((destination) => ({
      key: `approval:${approval.id}:${phase}:${destination}`,
      destination,
      kind: 'notice',
      payload: { kind: 'notice', text, receivedKey: receivedKey(original.key, destination) } satisfies OutboxMessage,
    }));
    // Rejected or expired: where the request has a status message, it stops saying it waits.
    if ((act === 'request.rejected' || act === 'request.expired') && original.kind === 'start') {
      const outcome = act === 'request.rejected' ? 'rejected' : 'expired';
      rows.push(
        ...places.map((destination) => ({
          key: `approval:${approval.id}:${phase}:status:${destination}`,
          destination,
          kind: 'approval',
          payload: {
            kind: 'approval',
            approvalId: approval.id,
            title: original.payload.title,
            route: approval.route,
            approvers: approval.approvers,
            expiresAt: approval.expiresAt,
            receivedKey: receivedKey(original.key, destination),
            outcome,
          } satisfies OutboxMessage,
        })),
      );
    }
    await this.deps.intake.owe(rows);
    const requester = original.kind === 'start' ? original.payload.requester : undefined;
    await this.deps.store.audit
      .record({
        at: now,
        act,
        surface: by ? by.platform : original.source,
        onceKey: `approval:${approval.id}:${phase}`,
        ...((by?.id ?? requester?.id) !== undefined && { personId: by?.id ?? requester?.id }),
        detail: { route: approval.route, ...(requester && { requester: requester.id }) },
      })
      .catch((error: unknown) => this.deps.logger.warn({ err: error, act }, 'could not record the audit entry'));
  }

  /** A private word to the person who clicked, where they clicked. */
  private async tell<T>(where: string, to: Requester, key: string, text: string, answer: T): Promise<T> {
    const now = this.deps.clock.now();
    const payload: OutboxMessage = { kind: 'notice', text, privateTo: to.id };
    await this.deps.intake.owe([{ key: `${key}:${to.id}:${now}`, destination: where, kind: 'notice', payload }]);
    return answer;
  }
}

/** The requester, named at the start of a message to them (the bridge's neutral mention token `<@personId> `, which each chat renders), when known. */
function mention(approval: ApprovalRecord): string {
  const name = approval.trigger.kind === 'start' ? requesterName(approval.trigger.payload.requester) : undefined;
  return name ? `${name}: ` : '';
}

function titleOf(approval: ApprovalRecord): string {
  return approval.trigger.kind === 'start' ? approval.trigger.payload.title : approval.id;
}

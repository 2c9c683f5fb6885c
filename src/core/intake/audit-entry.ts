/**
 * The audit entry a settled trigger leaves: a run started, followed up or
 * cancelled, a request held for approval or refused by a limit — who asked, on which surface, which
 * run, the route's name and whose key. Never the request's words: only the facts below.
 */
import type { AuditAct, AuditEntry } from '../ports/audit.js';
import type { StoredTrigger, TriggerEffects, TriggerOutcome } from '../ports/store.js';
import type { ResolvedRoute } from './routing.js';

/** How a step ended a trigger, as far as the audit trail cares (a `Settlement`). */
interface Settled {
  outcome: TriggerOutcome;
  effects: TriggerEffects;
  audit?: AuditFacts;
}

/** What a step knows of its act that the settlement's outcome does not say. */
export interface AuditFacts {
  /** The act, where the outcome alone does not tell it (a request held, a start that followed up). */
  act?: AuditAct;
  /** Whose key: the service's or the asker's own. */
  key?: 'service' | 'personal';
  /** The route's name (its config `name`, or `factory:<uid>`). */
  route?: string;
  /** Whose key it was, when personal: the person behind the request. */
  person?: string;
  /** More short facts (never text people wrote). */
  detail?: Readonly<Record<string, string | number>>;
}

/** The name an audit entry gives a route. */
export function routeName(route: ResolvedRoute | undefined): string | undefined {
  if (!route) return undefined;
  return route.kind === 'factory' ? `factory:${route.factory_uid}` : route.config.name;
}

/** The audit facts of whose key a request used. */
export function keyFacts(personalKeyOwner: string | undefined): AuditFacts {
  return personalKeyOwner === undefined ? { key: 'service' } : { key: 'personal', person: personalKeyOwner };
}

/** The act a settled trigger did, if it changed anything. */
function actOf(trigger: StoredTrigger, settlement: Settled): AuditAct | undefined {
  const { outcome, effects } = settlement;
  if (settlement.audit?.act) return settlement.audit.act;
  // A limit refused the request (the limit check settles it so): nothing ran, and that is worth a line.
  if (outcome.state === 'ignored' && outcome.error === 'limit') return 'request.refused_limit';
  if (outcome.state !== 'done') return undefined;
  if (trigger.kind === 'start') return effects.run ? 'run.started' : outcome.runId ? 'run.followed_up' : undefined;
  if (trigger.kind === 'followup') return 'run.followed_up';
  // A cancel of a run that had already ended changed nothing.
  return outcome.error === undefined ? 'run.cancelled' : undefined;
}

/** The entry a settled trigger leaves, or undefined when it changed nothing. Recorded once per trigger. */
export function auditEntryOf(trigger: StoredTrigger, settlement: Settled, now: number): AuditEntry | undefined {
  const act = actOf(trigger, settlement);
  if (!act) return undefined;
  const facts = settlement.audit ?? {};
  const run = settlement.effects.run;
  const route = facts.route ?? (run ? routeName(run.route as ResolvedRoute) : undefined);
  const key = facts.key ?? (run ? (run.personalKeyOwner === undefined ? 'service' : 'personal') : undefined);
  const personId = facts.person ?? run?.personalKeyOwner ?? trigger.payload.requester?.id;
  const runId = settlement.outcome.runId;
  const detail = { ...(route !== undefined && { route }), ...(key !== undefined && { key }), ...facts.detail };
  return {
    at: now,
    act,
    surface: trigger.source,
    onceKey: `trigger:${trigger.key}`,
    ...(personId !== undefined && { personId }),
    ...(runId !== undefined && { runId }),
    ...(Object.keys(detail).length > 0 && { detail }),
  };
}

/**
 * The names of our spans and of the attributes we set on them, pinned in one place: OpenTelemetry's
 * GenAI and agent conventions are still "Development" and may rename theirs, while operators' saved
 * queries must keep working (docs/observability.md lists them). Values are ids, never text.
 */

/** Span names. */
export const SPAN = {
  /** A request a surface sent us (at the signed-webhook edge or a surface's own receiver). */
  request: 'agent_bridge.request',
  /** One attempt of the intake worker at one trigger. */
  intake: 'agent_bridge.intake',
  /** A run API call that invokes the agent (create, dispatch, follow-up, cancel): GenAI's `invoke_agent`. */
  invokeAgent: 'invoke_agent',
  /** Any other run API call (reads). */
  runApi: 'agent_bridge.run_api',
  /** One delivery of one outbox row. */
  delivery: 'agent_bridge.outbox.deliver',
  /** A run's state change the tracker observed. */
  stateChange: 'agent_bridge.tracker.state_change',
  /** One fire of a schedule's slot. */
  scheduleSlot: 'agent_bridge.schedule.slot',
  /** One SQLite write transaction (better-sqlite3 has no instrumentation of its own). */
  storeTransaction: 'agent_bridge.store.transaction',
} as const;

/** Attribute names. */
export const ATTR = {
  surface: 'agent_bridge.surface',
  place: 'agent_bridge.place',
  person: 'agent_bridge.person',
  triggerKey: 'agent_bridge.trigger_key',
  triggerKind: 'agent_bridge.trigger_kind',
  attempt: 'agent_bridge.attempt',
  /** This attempt follows another (a retry) or the request came again (a redelivery): linked, not a child. */
  redelivered: 'agent_bridge.redelivered',
  runId: 'agent_bridge.run_id',
  runState: 'agent_bridge.run_state',
  transition: 'agent_bridge.transition',
  outboxKind: 'agent_bridge.outbox.kind',
  schedule: 'agent_bridge.schedule',
  slot: 'agent_bridge.schedule.slot',
  runApiCall: 'agent_bridge.run_api.call',
  statements: 'agent_bridge.store.statements',
  errorType: 'error.type',
  genAiOperation: 'gen_ai.operation.name',
  genAiConversation: 'gen_ai.conversation.id',
  genAiAgentName: 'gen_ai.agent.name',
  genAiProvider: 'gen_ai.provider.name',
} as const;

/** Span event names. */
export const EVENT = {
  /** A call or a trigger will be tried again: `agent_bridge.attempt` and `agent_bridge.retry_in_ms`. */
  retry: 'retry',
} as const;

/** The retry event's delay attribute. */
export const RETRY_IN_MS = 'agent_bridge.retry_in_ms';

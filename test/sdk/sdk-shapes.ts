/**
 * Run-time mirrors (zod) of the types the run API's official TypeScript SDK (`oz-agent-sdk`)
 * declares, so a test can check every body the emulator sends against them. TypeScript types vanish
 * at run time; the compile-time checks at the bottom tie each schema to the SDK's declaration, so
 * `npm test` (which type-checks first) fails when the SDK and these schemas drift apart.
 *
 * Where the installed SDK (1.0.0-alpha.8) is behind its source repository
 * (warpdotdev/oz-sdk-typescript), the schemas follow the repository and say so: the `BLOCKED` and
 * `ERROR` states, the `error_code`/`retryable` members of a status message, the `ErrorCode` set and
 * the problem body (`Error`). Those additions are pinned by exact type checks too.
 */
import type { AgentRunResponse, AmbientAgentConfig, UserProfile } from 'oz-agent-sdk/resources/agent';
import type { ArtifactItem, RunItem, RunListResponse, RunSourceType, RunState } from 'oz-agent-sdk/resources/agent';
import { z } from 'zod';

/** `ErrorCode` of the SDK's source repository (`resources/agent/agent.ts`), in its order. */
export const SDK_ERROR_CODES = [
  'insufficient_credits',
  'feature_not_available',
  'external_authentication_required',
  'not_authorized',
  'invalid_request',
  'resource_not_found',
  'budget_exceeded',
  'integration_disabled',
  'integration_not_configured',
  'operation_not_supported',
  'environment_setup_failed',
  'content_policy_violation',
  'conflict',
  'authentication_required',
  'resource_unavailable',
  'internal_error',
] as const;

/** `Error.type` is `https://docs.warp.dev/reference/api-and-sdk/troubleshooting/errors/{error_code}`. */
export const PROBLEM_TYPE_PREFIX = 'https://docs.warp.dev/reference/api-and-sdk/troubleshooting/errors/';

const SDK_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
/** States the SDK's repository added after alpha.8. */
const NEWER_STATES = ['BLOCKED', 'ERROR'] as const;
const SOURCES = ['LINEAR', 'API', 'SLACK', 'LOCAL', 'SCHEDULED_AGENT', 'WEB_APP', 'GITHUB_ACTION', 'CLOUD_MODE', 'CLI'] as const;

const timestamp = z.iso.datetime({ offset: true });
const runState = z.enum([...SDK_STATES, ...NEWER_STATES]);

const mcpServer = z.object({
  args: z.array(z.string()).optional(),
  command: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  warp_id: z.string().optional(),
});

/** Not strict: the run API passes through config fields the SDK does not list. */
export const agentConfigSchema = z.object({
  base_prompt: z.string().optional(),
  computer_use_enabled: z.boolean().optional(),
  environment_id: z.string().optional(),
  mcp_servers: z.record(z.string(), mcpServer).optional(),
  model_id: z.string().optional(),
  name: z.string().optional(),
  skill_spec: z.string().optional(),
  worker_host: z.string().optional(),
});

export const userProfileSchema = z.strictObject({
  display_name: z.string().optional(),
  photo_url: z.string().optional(),
  type: z.enum(['user', 'service_account']).optional(),
  uid: z.string().optional(),
});

export const artifactSchema = z.discriminatedUnion('artifact_type', [
  z.strictObject({
    artifact_type: z.literal('PLAN'),
    created_at: timestamp,
    data: z.strictObject({ document_uid: z.string(), notebook_uid: z.string().optional(), title: z.string().optional() }),
  }),
  z.strictObject({
    artifact_type: z.literal('PULL_REQUEST'),
    created_at: timestamp,
    data: z.strictObject({ branch: z.string(), url: z.string() }),
  }),
]);

export const statusMessageSchema = z.strictObject({
  message: z.string(),
  error_code: z.enum(SDK_ERROR_CODES).optional(),
  retryable: z.boolean().optional(),
});

/** RunItem; every optional member is optional-not-nullable except `started_at`, as declared. */
export const runItemSchema = z.strictObject({
  created_at: timestamp,
  prompt: z.string(),
  run_id: z.string().min(1),
  state: runState,
  task_id: z.string().min(1),
  title: z.string(),
  updated_at: timestamp,
  agent_config: agentConfigSchema.optional(),
  agent_skill: z
    .strictObject({
      bundled_skill_id: z.string().optional(),
      description: z.string().optional(),
      full_path: z.string().optional(),
      name: z.string().optional(),
    })
    .optional(),
  artifacts: z.array(artifactSchema).optional(),
  conversation_id: z.string().optional(),
  creator: userProfileSchema.optional(),
  is_sandbox_running: z.boolean().optional(),
  request_usage: z.strictObject({ compute_cost: z.number().optional(), inference_cost: z.number().optional() }).optional(),
  schedule: z.strictObject({ cron_schedule: z.string(), schedule_id: z.string(), schedule_name: z.string() }).optional(),
  scope: z.strictObject({ type: z.enum(['User', 'Team']), uid: z.string().optional() }).optional(),
  session_id: z.string().optional(),
  session_link: z.string().optional(),
  source: z.enum(SOURCES).optional(),
  started_at: timestamp.nullable().optional(),
  status_message: statusMessageSchema.optional(),
});

export const runListSchema = z.strictObject({
  page_info: z.strictObject({ has_next_page: z.boolean(), next_cursor: z.string().optional() }),
  runs: z.array(runItemSchema),
});

export const createdRunSchema = z.strictObject({ run_id: z.string().min(1), state: z.literal('QUEUED'), task_id: z.string().min(1) });

/** The SDK repository's `Error` (RFC 7807), with `error` and `type` from the ErrorCode set. */
export const problemSchema = z.strictObject({
  error: z.enum(SDK_ERROR_CODES),
  status: z.number().int(),
  title: z.string(),
  type: z.string().startsWith(PROBLEM_TYPE_PREFIX),
  detail: z.string().optional(),
  instance: z.string().optional(),
  retryable: z.boolean().optional(),
  trace_id: z.string().optional(),
});

/*
 * Compile-time ties to the SDK. `Same<A, B>` is exact type equality; `Assignable<A, B>` means every
 * value of A is a value of B. A failing check is a type error here, in `npm test`'s type-check step.
 */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assignable<A, B> = [A] extends [B] ? true : false;
type Check<T extends true> = T;

type Run = z.infer<typeof runItemSchema>;
type Widened = 'state' | 'status_message';

export type SdkChecks = [
  // The schema has exactly the SDK's members, no more and no fewer.
  Check<Same<keyof Run, keyof RunItem>>,
  Check<Same<keyof z.infer<typeof agentConfigSchema>, keyof AmbientAgentConfig>>,
  Check<Same<keyof z.infer<typeof userProfileSchema>, keyof UserProfile>>,
  Check<Same<keyof z.infer<typeof createdRunSchema>, keyof AgentRunResponse>>,
  Check<Same<keyof z.infer<typeof runListSchema>, keyof RunListResponse>>,
  // Whatever passes the schema is a value of the SDK's type…
  Check<Assignable<Omit<Run, Widened>, Omit<RunItem, Widened>>>,
  Check<Assignable<z.infer<typeof artifactSchema>, ArtifactItem>>,
  Check<Assignable<z.infer<typeof createdRunSchema>, AgentRunResponse>>,
  Check<Assignable<z.infer<typeof statusMessageSchema>, NonNullable<RunItem['status_message']>>>,
  // …and the SDK's own values pass it (the artifact union, states and sources are the same sets).
  Check<Same<z.infer<typeof artifactSchema>['artifact_type'], ArtifactItem['artifact_type']>>,
  Check<Same<NonNullable<Run['source']>, RunSourceType>>,
  // The only widenings are the states and status-message members of the SDK's newer source.
  Check<Same<Exclude<Run['state'], RunState>, 'BLOCKED' | 'ERROR'>>,
  Check<Assignable<RunState, Run['state']>>,
  Check<Same<Exclude<keyof z.infer<typeof statusMessageSchema>, keyof NonNullable<RunItem['status_message']>>, 'error_code' | 'retryable'>>,
];

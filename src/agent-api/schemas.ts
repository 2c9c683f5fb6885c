import { z } from 'zod';
import type { Artifact, CreatedRun, RunItem, RunPage } from '../core/ports/agent-runs.js';

/*
 * Response schemas are deliberately tolerant: the provider adds fields and states over time, and a
 * client that rejects them would stop the service on the day they ship. Only what we cannot work
 * without (run_id, state) is required; everything else is optional, nullable and passed through.
 * Both the older shapes and those of the provider's SDK (oz-agent-sdk) are read: a status message
 * as a string or as `{message?, error_code?, retryable?}`, optional members absent or null, and
 * members we do not use (`task_id`, an artifact's `created_at`) kept as they came.
 */

const optionalString = z.string().nullish();
const costSchema = z.number().finite().nonnegative().nullish().catch(undefined);

const statusMessageSchema = z.union([
  z.string(),
  z.looseObject({
    // Optional in the SDK's alpha.8 types: a message-less object reads as an empty message.
    message: z.string().optional().default(''),
    error_code: z.string().nullish(),
    retryable: z.boolean().nullish(),
  }),
]);

const artifactSchema = z.looseObject({
  artifact_type: z.string(),
  data: z.record(z.string(), z.unknown()).nullish(),
});

/** Keeps the artifacts we can read and drops malformed ones instead of failing the whole run. */
const artifactsSchema = z.array(z.unknown()).transform((items): Artifact[] =>
  items.flatMap((item) => {
    const parsed = artifactSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  }),
);

export const runItemSchema = z.looseObject({
  run_id: z.string().min(1),
  state: z.string().min(1),
  title: optionalString,
  prompt: optionalString,
  status_message: statusMessageSchema.nullish().catch(undefined),
  created_at: optionalString,
  updated_at: optionalString,
  started_at: optionalString,
  session_id: optionalString,
  session_link: optionalString,
  agent_config: z.looseObject({}).nullish().catch(undefined),
  artifacts: artifactsSchema.nullish().catch(undefined),
  // A figure that is not a finite, non-negative number is read as missing, not as a broken run.
  request_usage: z.looseObject({ inference_cost: costSchema, compute_cost: costSchema }).nullish().catch(undefined),
});

export const runPageSchema = z.looseObject({
  runs: z.array(runItemSchema),
  page_info: z
    .looseObject({
      has_next_page: z.boolean(),
      next_cursor: optionalString,
    })
    .optional()
    .default({ has_next_page: false }),
});

export const createdRunSchema = z.looseObject({
  run_id: z.string().min(1),
  state: z.string().min(1).optional().default('QUEUED'),
});

/** RFC 7807 problem body as the run API sends it; every field optional so any error body parses. */
export const problemSchema = z.looseObject({
  type: z.string().optional().catch(undefined),
  title: z.string().optional().catch(undefined),
  status: z.number().optional().catch(undefined),
  detail: z.string().optional().catch(undefined),
  error: z.string().optional().catch(undefined),
  retryable: z.boolean().optional().catch(undefined),
});

export type Problem = z.infer<typeof problemSchema>;

export const parseRunItem = (value: unknown) => runItemSchema.safeParse(value) as z.ZodSafeParseResult<RunItem>;
export const parseRunPage = (value: unknown) => runPageSchema.safeParse(value) as z.ZodSafeParseResult<RunPage>;
export const parseCreatedRun = (value: unknown) => createdRunSchema.safeParse(value) as z.ZodSafeParseResult<CreatedRun>;

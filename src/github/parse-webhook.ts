/**
 * The shape check of a GitHub webhook delivery (docs/github.md): one zod
 * schema per event we act on, checking only the fields we read (unknown fields pass, `null` where
 * GitHub sends it is allowed). A malformed body is a 400 naming the field; an event we do not handle
 * (or `ping`) is a valid delivery the caller ignores. Nothing here is stored.
 */
import { z } from 'zod';

const text = z.string().max(200);
const id = z.number().int().nonnegative();
/** Bodies people write: GitHub caps them at 65,536 characters. */
const prose = z.string().max(70_000).nullish();

const user = z.looseObject({ login: text, type: text.optional() });
const repository = z.looseObject({
  full_name: z
    .string()
    .regex(/^[^/\s]+\/[^/\s]+$/, 'must be owner/name')
    .max(200),
});
const installation = z.looseObject({ id });
const association = text.optional();

const common = { repository, installation: installation.optional(), sender: user };

/** A time GitHub stamps (ISO 8601, `2026-03-02T10:00:00Z`). */
const stamp = z.string().max(40).optional();

const issue = z.looseObject({
  number: id,
  updated_at: stamp,
  title: z.string().max(1_000),
  body: prose,
  html_url: z.string().max(1_000),
  user: user.nullish(),
  labels: z
    .array(z.looseObject({ name: text }))
    .max(200)
    .optional(),
  // A pull request's issue: issues and pull requests share the issue-comment API.
  pull_request: z.looseObject({}).nullish(),
});

const comment = z.looseObject({
  id,
  body: prose,
  html_url: z.string().max(1_000),
  user: user.nullish(),
  author_association: association,
  created_at: stamp,
  performed_via_github_app: z.looseObject({ id }).nullish(),
});

const pullRequest = z.looseObject({ number: id, html_url: z.string().max(1_000), title: z.string().max(1_000).optional(), merged: z.boolean().nullish() });

const schemas = {
  issues: z.looseObject({ action: text, issue, label: z.looseObject({ name: text }).optional(), ...common }),
  issue_comment: z.looseObject({ action: text, issue, comment, ...common }),
  pull_request: z.looseObject({ action: text, pull_request: pullRequest, ...common }),
  pull_request_review: z.looseObject({
    action: text,
    review: z.looseObject({
      id,
      state: text,
      body: prose,
      html_url: z.string().max(1_000),
      user: user.nullish(),
      author_association: association,
      submitted_at: stamp.nullable(),
    }),
    pull_request: pullRequest,
    ...common,
  }),
  pull_request_review_comment: z.looseObject({
    action: text,
    comment: comment.extend({ path: z.string().max(1_000), line: id.nullish(), original_line: id.nullish(), diff_hunk: z.string().max(70_000).nullish() }),
    pull_request: pullRequest,
    ...common,
  }),
  check_run: z.looseObject({
    action: text,
    check_run: z.looseObject({
      id,
      name: text,
      status: text.optional(),
      conclusion: text.nullish(),
      completed_at: stamp.nullable(),
      html_url: z.string().max(1_000).nullish(),
      details_url: z.string().max(1_000).nullish(),
      output: z.looseObject({ title: z.string().max(1_000).nullish(), summary: z.string().max(70_000).nullish() }).nullish(),
      pull_requests: z.array(z.looseObject({ number: id })).max(100),
    }),
    ...common,
  }),
} as const;

export type GithubEventName = keyof typeof schemas;
export type GithubEvent = { [K in GithubEventName]: { event: K; payload: z.output<(typeof schemas)[K]> } }[GithubEventName];
export type GithubPayload<K extends GithubEventName> = z.output<(typeof schemas)[K]>;

/** The events the App subscribes to (its manifest's `default_events`). */
export const GITHUB_EVENTS = Object.keys(schemas) as GithubEventName[];

export type ParsedGithubWebhook = { ok: true; delivery: GithubEvent } | { ok: true; ignored: string } | { ok: false; reason: string };

const isHandled = (event: string): event is GithubEventName => Object.hasOwn(schemas, event);

/** Parses a verified body of `X-GitHub-Event: event`. The reason of a refusal names the field, never echoes its value. */
export function parseGithubWebhook(event: string | undefined, body: string): ParsedGithubWebhook {
  if (!event || !/^[a-z_]{1,60}$/.test(event)) return { ok: false, reason: 'X-GitHub-Event is missing or malformed' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { ok: false, reason: 'body is not a JSON object' };
  if (!isHandled(event)) return { ok: true, ignored: `event ${event} is not handled` };
  const parsed = schemas[event].safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || 'body';
    return { ok: false, reason: `${event}: ${where} ${issue?.code === 'invalid_type' ? 'is missing or of the wrong type' : 'is invalid'}` };
  }
  return { ok: true, delivery: { event, payload: parsed.data } as GithubEvent };
}

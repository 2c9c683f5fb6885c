/**
 * The shape check of a Jira webhook body (docs/jira.md), with zod. Only
 * what we act on is checked and kept: unknown fields pass, an event we do not handle is a valid
 * envelope the caller ignores, and `null` in an optional field counts as absent. Webhook payloads
 * carry fields in the REST v2 shape: a description or comment body may be a plain string or ADF, and
 * both are read as text here.
 */
import { z } from 'zod';
import { adfToText } from './adf.js';

/** The events read (docs/jira.md); every other `webhookEvent` is answered 200 and ignored. */
export const HANDLED_EVENTS = ['jira:issue_created', 'jira:issue_updated', 'comment_created', 'comment_updated'] as const;
export type HandledEvent = (typeof HANDLED_EVENTS)[number];

const nullable = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);
const id = z.union([z.string().min(1).max(200), z.int().nonnegative()]).transform(String);

const userSchema = z.looseObject({
  accountId: z.string().min(1).max(200),
  displayName: nullable(z.string().max(500)),
  accountType: nullable(z.string().max(40)),
});

/** A description or comment body: a v2 string or an ADF document, read as text. */
const richText = z
  .unknown()
  .refine((value) => value === null || value === undefined || typeof value === 'string' || (typeof value === 'object' && !Array.isArray(value)), {
    error: 'must be text or an ADF document',
  })
  .transform((value) => adfToText(value));

const issueSchema = z.looseObject({
  id,
  key: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*-\d+$/, { error: 'must be an issue key such as ENG-123' }),
  fields: nullable(
    z.looseObject({
      summary: nullable(z.string().max(10_000)),
      description: richText.optional(),
      labels: nullable(z.array(z.string().max(255)).max(1_000)),
      project: nullable(z.looseObject({ key: z.string().max(255), id: nullable(id), name: nullable(z.string().max(500)) })),
    }),
  ),
});

const changelogSchema = z.looseObject({
  id: nullable(id),
  items: nullable(
    z
      .array(
        z.looseObject({
          field: nullable(z.string().max(255)),
          fieldId: nullable(z.string().max(255)),
          fromString: nullable(z.string().max(100_000)),
          toString: nullable(z.string().max(100_000)),
        }),
      )
      .max(1_000),
  ),
});

const commentSchema = z.looseObject({
  id,
  body: richText,
  author: nullable(userSchema),
  updateAuthor: nullable(userSchema),
  created: nullable(z.string().max(100)),
});

const envelopeSchema = z.looseObject({
  webhookEvent: z.string().min(1).max(200),
  timestamp: nullable(z.number()),
  user: nullable(userSchema),
  issue: nullable(issueSchema),
  changelog: nullable(changelogSchema),
  comment: nullable(commentSchema),
});

export type JiraUser = z.output<typeof userSchema>;
export type JiraIssue = z.output<typeof issueSchema>;
export type JiraChangelog = z.output<typeof changelogSchema>;
export type JiraCommentData = z.output<typeof commentSchema>;

/** A delivery we act on: an issue event with its issue, or a comment event with its comment and issue. */
export type JiraWebhook =
  | { event: 'jira:issue_created' | 'jira:issue_updated'; issue: JiraIssue; user?: JiraUser; changelog?: JiraChangelog; timestamp?: number }
  | { event: 'comment_created' | 'comment_updated'; issue: JiraIssue; comment: JiraCommentData; timestamp?: number }
  | { event: 'other'; name: string };

export type ParsedJiraWebhook = { ok: true; webhook: JiraWebhook } | { ok: false; reason: string };

const isHandled = (name: string): name is HandledEvent => (HANDLED_EVENTS as readonly string[]).includes(name);

/** Parses a webhook body (the raw text, after the signature check); a reason names the field. */
export function parseJiraWebhook(text: string): ParsedJiraWebhook {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, reason: 'body must be a JSON object' };
  const event = (body as { webhookEvent?: unknown }).webhookEvent;
  if (typeof event !== 'string' || event === '') return { ok: false, reason: 'webhookEvent must be a string' };
  // An event we do not read is not checked further: its shape is not ours to judge.
  if (!isHandled(event)) return { ok: true, webhook: { event: 'other', name: event.slice(0, 60) } };
  const parsed = envelopeSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'body does not match' };
  }
  const envelope = parsed.data;
  if (!envelope.issue) return { ok: false, reason: `issue: required for ${event}` };
  const timestamp = envelope.timestamp !== undefined ? { timestamp: envelope.timestamp } : {};
  if (event === 'comment_created' || event === 'comment_updated') {
    if (!envelope.comment) return { ok: false, reason: `comment: required for ${event}` };
    return { ok: true, webhook: { event, issue: envelope.issue, comment: envelope.comment, ...timestamp } };
  }
  return {
    ok: true,
    webhook: {
      event,
      issue: envelope.issue,
      ...(envelope.user && { user: envelope.user }),
      ...(envelope.changelog && { changelog: envelope.changelog }),
      ...timestamp,
    },
  };
}

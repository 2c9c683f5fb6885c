/**
 * The shape check of a GitLab webhook delivery (docs/gitlab.md): the hook named by `X-Gitlab-Event`,
 * its body's `object_kind` matching it, and one zod schema per kind we read, checking only the fields
 * we read (unknown fields pass). A malformed body is a 400 naming the field, never echoing its value;
 * a hook we do not handle is a valid delivery the caller ignores. Nothing here is stored.
 */
import { z } from 'zod';

const text = z.string().max(255);
const id = z.number().int().nonnegative();
/** An issue's or merge request's number in its project: from 1. */
const iid = z.number().int().min(1);
/** GitLab caps a note and a description at 1,000,000 characters. */
const prose = z.string().max(1_000_000);
/** A time as hooks write it (`2026-03-02 10:00:00 UTC`). */
const stamp = z.string().max(40).nullish();
const url = z.string().max(2_000);
/** A line of a file in a diff. */
const line = z.number().int().nonnegative().max(100_000_000);

const user = z.looseObject({ id, username: text });
const project = z.looseObject({
  id,
  path_with_namespace: z
    .string()
    .max(255)
    .regex(/^[^/\s]+(?:\/[^/\s]+)+$/, 'must be group/project'),
  web_url: url,
});
const label = z.looseObject({ title: text });
const labels = z.array(label).max(500);

const common = { user, project };

const schemas = {
  issue: z.looseObject({
    ...common,
    object_attributes: z.looseObject({
      iid,
      title: z.string().max(1_000),
      description: prose.nullish(),
      url,
      action: text.optional(),
      updated_at: stamp,
      labels: labels.optional(),
    }),
    labels: labels.optional(),
    changes: z.looseObject({ labels: z.looseObject({ previous: labels.nullish(), current: labels.nullish() }).optional() }).optional(),
  }),
  note: z.looseObject({
    ...common,
    object_attributes: z.looseObject({
      id,
      note: prose,
      noteable_type: text,
      discussion_id: text.nullish(),
      system: z.boolean().optional(),
      action: text.optional(),
      url,
      created_at: stamp,
      type: text.nullish(),
      // A diff note's line: paths and line numbers as the diff shows them (either side may be absent).
      position: z
        .looseObject({
          new_path: z.string().max(4_096).nullish(),
          old_path: z.string().max(4_096).nullish(),
          new_line: line.nullish(),
          old_line: line.nullish(),
        })
        .nullish(),
    }),
    issue: z.looseObject({ iid, title: z.string().max(1_000), url }).optional(),
    merge_request: z.looseObject({ iid, url }).optional(),
  }),
  merge_request: z.looseObject({ ...common, object_attributes: z.looseObject({ iid, action: text.optional(), url, updated_at: stamp }) }),
  pipeline: z.looseObject({
    ...common,
    object_attributes: z.looseObject({ id, status: text, finished_at: stamp }),
    merge_request: z.looseObject({ iid }).nullish(),
    builds: z.array(z.looseObject({ id, name: text, status: text, stage: text.nullish(), allow_failure: z.boolean().nullish() })).max(10_000),
  }),
} as const;

export type GitlabKind = keyof typeof schemas;
export type GitlabEvent = { [K in GitlabKind]: { kind: K; payload: z.output<(typeof schemas)[K]> } }[GitlabKind];
export type GitlabPayload<K extends GitlabKind> = z.output<(typeof schemas)[K]>;

/** The hooks we read, by `X-Gitlab-Event`, and the `object_kind` each carries (a confidential issue or note fires its own hook). */
export const GITLAB_HOOKS: Readonly<Record<string, GitlabKind>> = {
  'Issue Hook': 'issue',
  'Confidential Issue Hook': 'issue',
  'Note Hook': 'note',
  'Confidential Note Hook': 'note',
  'Merge Request Hook': 'merge_request',
  'Pipeline Hook': 'pipeline',
};

export type ParsedGitlabWebhook = { ok: true; event: GitlabEvent } | { ok: true; ignored: string } | { ok: false; reason: string };

/** Parses a verified body sent as `X-Gitlab-Event: hook`. A refusal's reason names the field, never its value. */
export function parseGitlabWebhook(hook: string | undefined, body: string): ParsedGitlabWebhook {
  if (!hook || !/^[A-Za-z ]{1,60}$/.test(hook)) return { ok: false, reason: 'X-Gitlab-Event is missing or malformed' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { ok: false, reason: 'body is not a JSON object' };
  const kind = Object.hasOwn(GITLAB_HOOKS, hook) ? GITLAB_HOOKS[hook] : undefined;
  if (kind === undefined) return { ok: true, ignored: `${hook} is not handled` };
  const objectKind = (json as Record<string, unknown>)['object_kind'];
  if (typeof objectKind !== 'string') return { ok: false, reason: `${hook}: object_kind is missing or of the wrong type` };
  if (objectKind !== kind) return { ok: false, reason: `${hook}: object_kind does not match X-Gitlab-Event` };
  const parsed = schemas[kind].safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || 'body';
    return { ok: false, reason: `${hook}: ${where} ${issue?.code === 'invalid_type' ? 'is missing or of the wrong type' : 'is invalid'}` };
  }
  return { ok: true, event: { kind, payload: parsed.data } as GitlabEvent };
}

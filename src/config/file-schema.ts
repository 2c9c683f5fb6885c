/**
 * The zod schema of `agent-bridge.yml` (docs/configuration.md "Config file"). Every key is optional and has
 * the documented default; unknown keys are errors, except inside a route's `config`, whose
 * AmbientAgentConfig fields pass through to the run API. An empty value (`slack:` with nothing
 * after it) counts as unset. Cross-field checks run even when other keys are wrong, so one start
 * reports every problem.
 */
import { z } from 'zod';
import { cronProblems } from './cron.js';
import { durationSyntaxHelp, formatDuration, parseDuration } from './duration.js';
import { ALLOWED_KEYS_PREFIX } from './problems.js';
import { ATTRIBUTIONS } from './types.js';
import { CHANNEL_ID_HINT, isValidTimeZone, LINEAR_ISSUE_ID, SCHEDULE_NAME, SLACK_CHANNEL_ID, SLACK_TEAM_ID, SLACK_USER_ID } from './validators.js';

const unsetIfNull = (value: unknown): unknown => (value === null ? undefined : value);
const emptyIfNull = (value: unknown): unknown => (value === null ? {} : value);
const always = { when: () => true };

/** Optional key: `null` (an empty YAML value) counts as unset. */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(unsetIfNull, schema.optional());
}

/** Optional key with a default (used as the output as it is). */
function withDefault<T extends z.ZodType>(schema: T, value: z.util.NoUndefined<z.output<T>>) {
  return z.preprocess(unsetIfNull, schema.default(value));
}

/** Optional section: when unset, `{}` is parsed, so the section's own defaults apply. */
function section<T extends z.ZodRawShape>(shape: T) {
  const schema = strict(shape);
  return z.preprocess(unsetIfNull, schema.prefault({} as z.input<typeof schema>));
}

/** Strict object whose unknown-key issue lists the allowed keys (read back in problems.ts). */
function strict<T extends z.ZodRawShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `${ALLOWED_KEYS_PREFIX}${allowed}` : undefined),
  });
}

const text = z.string().trim().min(1);

function duration(min: number, max: number) {
  return z.unknown().transform((value, ctx): number => {
    const shown = typeof value === 'number' ? String(value) : value;
    if (typeof shown !== 'string') {
      ctx.addIssue({ code: 'custom', message: 'must be a duration such as 10s, 15m or 7d' });
      return z.NEVER;
    }
    const ms = parseDuration(shown.trim());
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: durationSyntaxHelp(shown) });
      return z.NEVER;
    }
    if (ms < min || ms > max) {
      const bound = ms < min ? `at least ${formatDuration(min)}` : `at most ${formatDuration(max)}`;
      ctx.addIssue({ code: 'custom', message: `must be ${bound} (found ${shown.trim()})` });
      return z.NEVER;
    }
    return ms;
  });
}

const HOUR = 3_600_000;
const CRON_HINT = 'fields: [second] minute hour day-of-month month day-of-week; e.g. "0 3 * * 1-5" = 03:00 Monday to Friday';
const DAY = 24 * HOUR;

/** AmbientAgentConfig: known fields checked, any other field passed through. */
export const agentConfigSchema = z.looseObject({
  name: optional(text),
  model_id: optional(text),
  base_prompt: optional(z.string()),
  environment_id: optional(text),
  skill_spec: z.unknown().optional(),
  mcp_servers: optional(z.record(z.string(), z.unknown())),
});

/** Which values a request's `[env=… model=… skill=…]` option may take: a list, or "*" for any. */
const overrideValues = z.union([z.literal('*'), z.array(text).min(1)], {
  error: 'must be "*" (any value) or a list of allowed values, e.g. [env_web, env_api]',
});

/** Limits (issue 31): runs at once, runs per UTC day, credits per UTC month; 0 = no limit. */
const limitsShape = {
  concurrent: withDefault(z.int().min(0).max(1_000_000), 0),
  per_day: withDefault(z.int().min(0).max(1_000_000), 0),
  credits_per_month: withDefault(z.number().min(0).max(1e12), 0),
};

const routeShape = {
  config: optional(agentConfigSchema),
  title: optional(text),
  agent_identity_uid: optional(text),
  factory_uid: optional(text),
  // Which options a request may set (issue 22); unset: none.
  overrides: optional(strict({ environment_id: optional(overrideValues), model_id: optional(overrideValues), skill_spec: optional(overrideValues) })),
  announce: optional(z.enum(['end', 'blocked_and_end', 'all'])),
  // The runs of this route (by its name) at once, per UTC day, and their credits per UTC month (issue 31).
  limits: optional(section(limitsShape)),
};

/** factory_uid excludes config and agent_identity_uid (a factory dispatch carries no config). */
function checkRouteTargets(value: unknown, ctx: z.RefinementCtx): void {
  if (value === null || typeof value !== 'object') return;
  const route = value as Record<string, unknown>;
  if (route.factory_uid === undefined || route.factory_uid === null) return;
  const others = ['config', 'agent_identity_uid'].filter((key) => route[key] !== undefined && route[key] !== null);
  if (others.length === 0) return;
  ctx.addIssue({
    code: 'custom',
    path: ['factory_uid'],
    message: `cannot be combined with ${others.join(' or ')} — a factory dispatch carries no config`,
    params: { hint: `keep factory_uid alone, or remove it and keep ${others.join(' and ')}` },
  });
}

export const routeSchema = z.preprocess(emptyIfNull, strict(routeShape).superRefine(checkRouteTargets, always));

const approverId = z.string().refine((id) => SLACK_USER_ID.test(id), {
  error: 'is not a Slack user ID — approvers are Slack users: use IDs such as U0123ABCD (profile → ⋮ → Copy member ID)',
});

/**
 * `approval` (issue 31): every request on the route waits until one of `approvers` (Slack user IDs)
 * approves it in Slack, or `expires` passes.
 */
const approvalSchema = strict({
  approvers: z.array(approverId).min(1, { error: 'must list at least one Slack user ID who may approve' }),
  expires: withDefault(duration(60_000, 30 * DAY), DAY),
});

/**
 * What every surface's route may carry besides a run's target (Slack channels, Linear labels, and the
 * routes of surfaces to come): `approval`. A surface whose places are not Slack's names the Slack
 * channel its buttons go to (`slack_channel`), checked by `requireApprovalChannel`.
 */
export const surfaceRouteShape = { ...routeShape, approval: optional(approvalSchema) };

/** A route needing approval on a surface other than Slack must name the Slack channel where its buttons go. */
export function requireApprovalChannel(value: unknown, ctx: z.RefinementCtx): void {
  if (value === null || typeof value !== 'object') return;
  const route = value as Record<string, unknown>;
  if (route.approval === undefined || route.approval === null || (route.slack_channel !== undefined && route.slack_channel !== null)) return;
  ctx.addIssue({
    code: 'custom',
    path: ['approval'],
    message: 'needs slack_channel on this route: the Approve and Reject buttons are posted in that Slack channel',
    params: { hint: 'add slack_channel: C0123ABCD (a channel the approvers are in), or remove approval' },
  });
}

const slackChannelId = z.string().refine((id) => SLACK_CHANNEL_ID.test(id), { error: `is not a Slack channel ID — ${CHANNEL_ID_HINT}` });

/**
 * A Linear label's route may also name a Slack channel (its runs then get a thread there too) and
 * projects (by name or id): an issue in one of them matches the route as well as one with the label.
 */
const labelRouteSchema = z.preprocess(
  emptyIfNull,
  strict({
    ...surfaceRouteShape,
    slack_channel: optional(slackChannelId),
    projects: optional(z.array(text).min(1, { error: 'must list at least one project' })),
  })
    .superRefine(checkRouteTargets, always)
    .superRefine(requireApprovalChannel, always),
);

/** The reactions the bot itself adds (docs/slack.md): a person adding one of them must not start a run. */
const OWN_REACTIONS = ['eyes', 'incoming_envelope', 'white_check_mark', 'x'];

/** An emoji name as Slack writes it in `reaction_added` (colons optional here, and removed). */
const emojiName = z
  .string()
  .trim()
  .transform((name) => name.replace(/^:|:$/g, ''))
  .refine((name) => /^[a-z0-9_+'-]+$/.test(name), { error: 'is not an emoji name: write it as Slack shows it, e.g. robot_face or :robot_face:' })
  .refine((name) => !OWN_REACTIONS.includes(name), {
    error: `is one of the reactions the bot adds itself (${OWN_REACTIONS.join(', ')}): choose another emoji`,
  });

/** How a channel's runs start without a mention (issue 22): a top-level message's first word(s), or a reaction. */
const channelTriggerSchema = strict({
  keywords: optional(z.array(text).min(1, { error: 'must list at least one keyword (or leave keywords out)' })),
  emoji: optional(emojiName),
});

/** A Slack channel's route may also say how runs start there without a mention (`trigger`). */
const channelRouteSchema = z.preprocess(
  emptyIfNull,
  strict({ ...surfaceRouteShape, trigger: optional(channelTriggerSchema) }).superRefine(checkRouteTargets, always),
);

const channelKey = z.string().refine((key) => key === '*' || SLACK_CHANNEL_ID.test(key), {
  error: `is not a channel ID or "*" — ${CHANNEL_ID_HINT}`,
});

const slackUserId = z.string().refine((id) => SLACK_USER_ID.test(id), {
  error: 'is not a Slack user ID — use IDs such as U0123ABCD (profile → ⋮ → Copy member ID), not names',
});

const slackTeamId = z.string().refine((id) => SLACK_TEAM_ID.test(id), {
  error: 'is not a Slack team or enterprise ID — use IDs such as T0123ABCD (a workspace) or E0123ABCD (an Enterprise Grid org), not names or domains',
});

const followups = z.enum(['all', 'mentions']);

/** How much earlier conversation goes with a start or a follow-up (issue 22): the latest messages within both bounds. */
const contextSchema = section({
  messages: withDefault(z.int().min(0).max(200), 20),
  characters: withDefault(z.int().min(0).max(100_000), 8_000),
});

const domainName = z.string().refine((domain) => /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(domain), {
  error: 'is not a domain name: write the host alone, lower-case, e.g. app.example.com (no scheme, port or path)',
});

/** Label names are case-insensitive: two keys naming one label, or an empty one, are problems. */
function checkLabelNames(labels: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const seen = new Map<string, string>();
  for (const key of Object.keys(labels)) {
    const lower = key.trim().toLowerCase();
    if (lower === '') {
      ctx.addIssue({ code: 'custom', path: [key], message: 'label name must not be empty' });
      continue;
    }
    const earlier = seen.get(lower);
    if (earlier !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `same label as "${earlier}" (label names are case-insensitive) — keep one of them`,
      });
    }
    seen.set(lower, key);
  }
}

const labelsSchema = z.record(z.string(), labelRouteSchema).superRefine((labels, ctx) => {
  if (labels === null || typeof labels !== 'object') return;
  checkLabelNames(labels, ctx);
  // A project routed by two entries would make the route depend on the order of the file.
  const projectOwner = new Map<string, string>();
  for (const [key, route] of Object.entries(labels)) {
    const projects = (route as { projects?: unknown } | null)?.projects;
    if (!Array.isArray(projects)) continue;
    projects.forEach((project: unknown, index) => {
      if (typeof project !== 'string') return;
      const name = project.trim().toLowerCase();
      const owner = projectOwner.get(name);
      if (owner !== undefined && owner !== key) {
        ctx.addIssue({
          code: 'custom',
          path: [key, 'projects', index],
          message: `project "${project.trim()}" is already routed by label "${owner}" — list it once`,
        });
      }
      projectOwner.set(name, owner ?? key);
    });
  }
}, always);

/** Keys that are the same once lower-cased (GitHub repo names and labels are case-insensitive) would make the route depend on the file's order. */
function uniqueIgnoringCase(what: string) {
  return (record: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (record === null || typeof record !== 'object') return;
    const seen = new Map<string, string>();
    for (const key of Object.keys(record)) {
      const lower = key.trim().toLowerCase();
      const earlier = seen.get(lower);
      if (earlier !== undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: `same ${what} as "${earlier}" (${what} names are case-insensitive) — keep one of them` });
      }
      seen.set(lower, key);
    }
  };
}

const githubRepoKey = z.string().refine((key) => key === '*' || /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/.test(key), {
  error: 'is not a repository: write it as "owner/name" (e.g. acme/web), or "*" for every other repository the App is installed on',
});
const githubLogin = z.string().refine((login) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(login), {
  error: 'is not a GitHub login: write the user name as in their profile URL, without @ (e.g. octocat)',
});
const githubLabel = z.string().refine((label) => label.trim() !== '', { error: 'label name must not be empty' });

/**
 * A GitHub route (a repository's or a label's) may name a Slack channel: its runs then get a thread
 * there too (as a Linear label's), and a route that asks for approval posts its buttons there.
 */
const githubRouteSchema = z.preprocess(
  emptyIfNull,
  strict({ ...surfaceRouteShape, slack_channel: optional(slackChannelId) })
    .superRefine(checkRouteTargets, always)
    .superRefine(requireApprovalChannel, always),
);

/** How a comment addresses the bot: its first word, so one word (`linear.handle`, `jira.handle`, `github.handle`). */
const handleSchema = withDefault(
  text.refine((handle) => !/\s/.test(handle), {
    error: 'must be a single word (it is matched as the first word of a comment), e.g. "@agent"',
  }),
  '@agent',
);

/** The keys an issue tracker's section shares (`linear:` and `jira:`, which has the same keys and meanings). */
const trackerShape = {
  handle: handleSchema,
  followups: withDefault(followups, 'mentions'),
  cancel_on_label_removed: withDefault(z.boolean(), true),
  context: contextSchema,
  // As slack.followup_window, for comments with followups: all.
  followup_window: withDefault(duration(0, 60_000), 2_000),
  // The workflow moves agent-bridge makes (by transition or state name): when a run starts, and when a pull request appears.
  states: withDefault(section({ started: text.optional(), pull_request: text.optional() }), {}),
};

/** `github:` (issue 29): which repositories and labels start runs, who may, and what on a run's pull request reaches it. */
const githubSection = section({
  handle: handleSchema,
  repos: withDefault(z.record(githubRepoKey, githubRouteSchema).superRefine(uniqueIgnoringCase('repository'), always), {}),
  labels: withDefault(z.record(githubLabel, githubRouteSchema).superRefine(uniqueIgnoringCase('label'), always), {}),
  allowed_users: withDefault(z.array(githubLogin), []),
  pull_requests: withDefault(z.enum(['none', 'mentions', 'reviews']), 'reviews'),
  ci_failures: withDefault(z.int().min(0).max(100), 0),
});
/**
 * A Jira label's route may also name a Slack channel (its runs then get a thread there too), and ask
 * for approval like every surface's route (its buttons then go to that channel).
 */
const jiraLabelRouteSchema = z.preprocess(
  emptyIfNull,
  strict({ ...surfaceRouteShape, slack_channel: optional(slackChannelId) })
    .superRefine(checkRouteTargets, always)
    .superRefine(requireApprovalChannel, always),
);

/** Jira labels are single words: Jira itself refuses a label with a space. */
const jiraLabelsSchema = z.record(z.string(), jiraLabelRouteSchema).superRefine((labels, ctx) => {
  if (labels === null || typeof labels !== 'object') return;
  checkLabelNames(labels, ctx);
  for (const key of Object.keys(labels)) {
    if (/\s/.test(key.trim()))
      ctx.addIssue({ code: 'custom', path: [key], message: 'Jira labels cannot contain spaces — write it as Jira shows it, e.g. agent-web' });
  }
}, always);

/** A Jira project key such as ENG (letters, digits and underscores, starting with a letter). */
const jiraProjectKey = z
  .string()
  .trim()
  .refine((key) => /^[A-Za-z][A-Za-z0-9_]{0,254}$/.test(key), { error: 'is not a Jira project key such as ENG (the prefix of its issue keys)' });

/** A Linear user id: a UUID (Linear shows it under Settings → Members, and in the API). */
const linearUserId = z
  .string()
  .trim()
  .refine((id) => /^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/i.test(id), {
    error: 'is not a Linear user id — a UUID such as 0a1b2c3d-0000-4000-8000-000000000000 (not a name or an email)',
  });

/**
 * An Atlassian account id as Jira shows it in a profile's URL or the REST API: `5b10ac8d82e05b22cc7d4ef5`,
 * or a prefix, a colon and a UUID (`557058:f58131cb-…`).
 */
const jiraAccountId = z
  .string()
  .trim()
  .refine((id) => /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}(?::[A-Za-z0-9-]{1,64})?$/.test(id), {
    error: 'is not an Atlassian account id — copy it from the person’s profile URL (…/jira/people/<account id>), e.g. 5b10ac8d82e05b22cc7d4ef5',
  });

const scheduleSchema = strict({
  ...routeShape,
  name: z
    .string()
    .trim()
    .refine((name) => SCHEDULE_NAME.test(name), {
      error: 'must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. nightly-deps)',
    }),
  cron: z.string().superRefine((expression, ctx) => {
    const problems = cronProblems(expression);
    if (problems.length === 0) return;
    ctx.addIssue({
      code: 'custom',
      message: `cron "${expression.trim()}": ${problems.join('; ')}`,
      ...(problems[0]?.startsWith('has ') ? {} : { params: { hint: CRON_HINT } }),
    });
  }),
  timezone: withDefault(
    z
      .string()
      .trim()
      .refine((zone) => isValidTimeZone(zone), {
        error: 'is not an IANA time zone — use a name such as Europe/Berlin, America/New_York or UTC',
      }),
    'UTC',
  ),
  prompt: text,
  overlap: withDefault(z.enum(['skip', 'allow']), 'skip'),
  catch_up: withDefault(z.enum(['none', 'latest']), 'none'),
  enabled: withDefault(z.boolean(), true),
  pause_after_failures: withDefault(z.int().min(0), 0),
  notify: section({
    slack_channel: optional(z.string().refine((id) => SLACK_CHANNEL_ID.test(id), { error: `is not a Slack channel ID — ${CHANNEL_ID_HINT}` })),
    linear_issue: optional(z.string().refine((id) => LINEAR_ISSUE_ID.test(id), { error: 'is not a Linear issue identifier such as ENG-42' })),
  }),
}).superRefine(checkRouteTargets, always);

const schedulesSchema = z.array(scheduleSchema).superRefine((schedules, ctx) => {
  if (!Array.isArray(schedules)) return;
  const firstIndex = new Map<string, number>();
  schedules.forEach((schedule: unknown, index) => {
    const name = (schedule as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return;
    const key = name.trim();
    const earlier = firstIndex.get(key);
    if (earlier === undefined) {
      firstIndex.set(key, index);
      return;
    }
    ctx.addIssue({
      code: 'custom',
      path: [index, 'name'],
      message: `duplicate schedule name "${key}" (also schedules[${earlier}]) — schedule names must be unique`,
    });
  });
}, always);

export const fileSchema = strict({
  defaults: withDefault(routeSchema, {}),
  tracker: section({
    interval: withDefault(duration(1_000, DAY), 10_000),
    page_size: withDefault(z.int().min(1).max(500), 100),
  }),
  intake: section({
    retry_window: withDefault(duration(1_000, 30 * DAY), 15 * 60_000),
    dedupe_retention: withDefault(duration(HOUR, 365 * DAY), 7 * DAY),
  }),
  slack: section({
    followups: withDefault(followups, 'all'),
    context: contextSchema,
    // With followups: all, replies within this window after the first go to the run as one follow-up (0 = each alone).
    followup_window: withDefault(duration(0, 60_000), 2_000),
    allowed_users: withDefault(z.array(slackUserId), []),
    // Organisations whose people may use the bot besides our own workspace (and its org): Slack Connect guests of others are refused.
    allowed_teams: withDefault(z.array(slackTeamId), []),
    channels: withDefault(z.record(channelKey, channelRouteSchema), {}),
    // A mention naming a Linear issue (ENG-123, or its URL) binds the run to that issue too.
    link_linear_issues: withDefault(z.boolean(), false),
    // A mention naming a Jira issue (ABC-123, or its URL) of a served project binds the run to that issue too.
    link_jira_issues: withDefault(z.boolean(), false),
    // The session-link domains whose pasted links unfurl into the run's title, state and place (issue 23).
    unfurl_domains: withDefault(z.array(domainName), []),
  }),
  linear: section({
    ...trackerShape,
    labels: withDefault(labelsSchema, {}),
    teams: withDefault(z.array(text), []),
    // User ids that may start, steer and stop though they are guests of the workspace; apps never.
    allowed_users: withDefault(z.array(linearUserId), []),
  }),
  github: githubSection,
  // Jira Cloud (issue 30): the keys and meanings of `linear:`, with `projects` (keys served; empty = all) for `teams`.
  jira: section({
    ...trackerShape,
    labels: withDefault(jiraLabelsSchema, {}),
    projects: withDefault(z.array(jiraProjectKey), []),
    // Account ids that may start, steer and stop besides the people who may edit the issue; customers and apps never.
    allowed_users: withDefault(z.array(jiraAccountId), []),
  }),
  schedules: withDefault(schedulesSchema, []),
  console: section({
    // Slack user IDs who see everything (and may cancel any run with /agent cancel).
    admins: withDefault(z.array(slackUserId), []),
  }),
  audit: section({
    // How long audit entries are kept (issue 31); older ones are deleted by the hourly housekeeping.
    retention: withDefault(duration(DAY, 10 * 365 * DAY), 90 * DAY),
  }),
  people: section({
    // Whose API key a run is created with (issue 20): the service's, the asker's when connected, or only the asker's.
    attribution: withDefault(z.enum(ATTRIBUTIONS), 'service'),
  }),
  limits: section({
    // The runs each person asks for, on any surface (issue 31).
    per_person: section(limitsShape),
  }),
});

export type FileConfig = z.output<typeof fileSchema>;
export type FileRoute = z.output<typeof routeSchema>;
export type FileApproval = z.output<typeof approvalSchema>;
export type FileLabelRoute = z.output<typeof labelRouteSchema>;
export type FileJiraLabelRoute = z.output<typeof jiraLabelRouteSchema>;
export type FileChannelRoute = z.output<typeof channelRouteSchema>;

/**
 * The zod schema of `agent-bridge.yml` (docs/configuration.md "Config file"). Every key is optional and has
 * the documented default; unknown keys are errors, except inside a route's `config`, whose
 * AmbientAgentConfig fields pass through to the run API. An empty value (`slack:` with nothing
 * after it) counts as unset. Cross-field checks run even when other keys are wrong, so one start
 * reports every problem.
 */
import { z } from 'zod';
import { always, DAY, duration, HOUR, optional, section, strict, text, withDefault } from '../config-kit/file-schema-parts.js';
import { personIdSchema } from '../config-kit/person-id-schema.js';
import { checkRouteTargets, limitsShape, routeSchema, routeShape } from '../config-kit/route-schema.js';
import { ATTRIBUTIONS } from '../config-kit/value-sets.js';
import { cronProblems } from './cron.js';
import { PERSON_IDS } from '../surface-list.js';
import { ROUTE_PARTS, SURFACE_SLICES } from './surface-slices.js';
import { isValidTimeZone, SCHEDULE_NAME } from './validators.js';

const CRON_HINT = 'fields: [second] minute hour day-of-month month day-of-week; e.g. "0 3 * * 1-5" = 03:00 Monday to Friday';

/** Each surface's section, in the order of the list of surfaces. */
function surfaceSections(): Record<string, z.ZodType> {
  return Object.fromEntries(SURFACE_SLICES.map(({ name, config }) => [name, config.fileSection(ROUTE_PARTS)]));
}

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
  // Where the schedule's runs report: each surface's own key (slack_channel, linear_issue).
  notify: section({
    ...Object.fromEntries(
      SURFACE_SLICES.flatMap(({ config }) => (config.scheduleNotify ? [[config.scheduleNotify.key, optional(config.scheduleNotify.schema)]] : [])),
    ),
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
  ...surfaceSections(),
  schedules: withDefault(schedulesSchema, []),
  console: section({
    // The people who see everything (and may cancel any run with /agent cancel): persons of any chat surface.
    admins: withDefault(z.array(personIdSchema(PERSON_IDS)), []),
  }),
  audit: section({
    // How long audit entries are kept; older ones are deleted by the hourly housekeeping.
    retention: withDefault(duration(DAY, 10 * 365 * DAY), 90 * DAY),
  }),
  people: section({
    // Whose API key a run is created with: the service's, the asker's when connected, or only the asker's.
    attribution: withDefault(z.enum(ATTRIBUTIONS), 'service'),
  }),
  limits: section({
    // The runs each person asks for, on any surface.
    per_person: section(limitsShape),
  }),
});

/** The parsed file: the service's own sections, and each surface's under its name (which its config slice reads). */
export type FileConfig = z.output<typeof fileSchema> & { readonly [surface: string]: unknown };

/**
 * Linear's slice of the configuration (`surface-kit/config-slice.ts`): its variables, `linear:`, and
 * the issue a schedule may report to (`notify.linear_issue`).
 */
import { z } from 'zod';
import type { ConfigSlice } from '../../surface-kit/config-slice.js';
import { describeLinear, linearSummary } from './describe.js';
import { linearEnvShape, linearIsOn, linearSetProblems, LINEAR_VARIABLES, readLinearEnv, type LinearEnv } from './env.js';
import { linearFileSection, type LinearFile } from './file.js';
import { resolveLinear, type LinearSection } from './section.js';

/** Linear issue identifiers such as ENG-42. */
const LINEAR_ISSUE_ID = /^[A-Za-z][A-Za-z0-9_]*-\d+$/;

const TURN_LINEAR_ON = 'turn Linear on with LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET';

/** Linear's config slice, the `config` of its module. */
export const linearConfig = {
  variables: LINEAR_VARIABLES,
  envShape: linearEnvShape,
  setProblems: linearSetProblems,
  readEnv: readLinearEnv,
  isOn: linearIsOn,
  fileSection: linearFileSection,
  resolve: resolveLinear,
  routes: (file: LinearFile) => [[['linear', 'labels'], file.labels]] as const,
  describe: describeLinear,
  summary: linearSummary,
  warnings: () => [],
  secrets: (linear: LinearSection) => [linear.apiKey, linear.accessToken, linear.webhookSecret],
  scheduleNotify: {
    key: 'linear_issue',
    field: 'linearIssue',
    schema: z.string().refine((id) => LINEAR_ISSUE_ID.test(id), { error: 'is not a Linear issue identifier such as ENG-42' }),
    whenOff: (schedule: string) => ({
      message: `schedule "${schedule}" reports to a Linear issue, but Linear is off: every comment of its runs would fail`,
      hint: `${TURN_LINEAR_ON}, or remove notify.linear_issue`,
    }),
  } as const,
  issueLinks: {
    whenOff: {
      message: 'is true, but Linear is off: a mention naming a Linear issue starts its run without the issue',
      hint: `${TURN_LINEAR_ON}, or set it to false`,
    },
  },
} satisfies ConfigSlice<typeof linearEnvShape, LinearEnv, LinearFile, LinearSection>;

/** Jira Cloud's slice of the configuration (`surface-kit/config-slice.ts`): its variables and `jira:`. */
import type { ConfigSlice } from '../../surface-kit/config-slice.js';
import { describeJira, jiraSummary, jiraWarnings } from './describe.js';
import { jiraEnvShape, jiraIsOn, jiraSetProblems, JIRA_VARIABLES, readJiraEnv, type JiraEnv } from './env.js';
import { jiraFileSection, type JiraFile } from './file.js';
import { resolveJira, type JiraSection } from './section.js';

/** Jira's config slice, the `config` of its module. */
export const jiraConfig = {
  variables: JIRA_VARIABLES,
  envShape: jiraEnvShape,
  setProblems: jiraSetProblems,
  readEnv: readJiraEnv,
  isOn: jiraIsOn,
  fileSection: jiraFileSection,
  resolve: resolveJira,
  routes: (file: JiraFile) => [[['jira', 'labels'], file.labels]] as const,
  describe: describeJira,
  summary: jiraSummary,
  warnings: jiraWarnings,
  secrets: (jira: JiraSection) => [jira.apiToken, jira.webhookSecret],
  issueLinks: {
    whenOff: {
      message: 'is true, but Jira is off: a mention naming a Jira issue starts its run without the issue',
      hint: 'turn Jira on with JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET, or set it to false',
    },
  },
} satisfies ConfigSlice<typeof jiraEnvShape, JiraEnv, JiraFile, JiraSection>;

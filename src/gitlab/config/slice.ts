/** GitLab's slice of the configuration (`surface-kit/config-slice.ts`): its variables and `gitlab:`. */
import type { ConfigSlice } from '../../surface-kit/config-slice.js';
import { describeGitlab, gitlabSummary, gitlabWarnings } from './describe.js';
import { gitlabEnvShape, gitlabIsOn, gitlabSetProblems, GITLAB_VARIABLES, readGitlabEnv, type GitlabEnv } from './env.js';
import { gitlabFileSection, type GitlabFile } from './file.js';
import { resolveGitlab, type GitlabSection } from './section.js';

/** GitLab's config slice, the `config` of its module. */
export const gitlabConfig = {
  variables: GITLAB_VARIABLES,
  envShape: gitlabEnvShape,
  setProblems: gitlabSetProblems,
  readEnv: readGitlabEnv,
  isOn: gitlabIsOn,
  fileSection: gitlabFileSection,
  resolve: resolveGitlab,
  routes: (file: GitlabFile) =>
    [
      [['gitlab', 'projects'], file.projects],
      [['gitlab', 'labels'], file.labels],
    ] as const,
  describe: describeGitlab,
  summary: gitlabSummary,
  warnings: gitlabWarnings,
  secrets: (gitlab: GitlabSection) => [gitlab.token, gitlab.webhookSecret],
} satisfies ConfigSlice<typeof gitlabEnvShape, GitlabEnv, GitlabFile, GitlabSection>;

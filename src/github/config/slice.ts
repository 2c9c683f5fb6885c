/** The GitHub App's slice of the configuration (`surface-kit/config-slice.ts`): its variables and `github:`. */
import type { ConfigSlice } from '../../surface-kit/config-slice.js';
import { describeGithub, githubSummary, githubWarnings } from './describe.js';
import { githubEnvShape, githubIsOn, githubSetProblems, GITHUB_VARIABLES, readGithubEnv, type GithubEnv } from './env.js';
import { githubFileSection, type GithubFile } from './file.js';
import { resolveGithub, type GithubSection } from './section.js';

/** The GitHub App's config slice, the `config` of its module. */
export const githubConfig = {
  variables: GITHUB_VARIABLES,
  envShape: githubEnvShape,
  setProblems: githubSetProblems,
  readEnv: readGithubEnv,
  isOn: githubIsOn,
  fileSection: githubFileSection,
  resolve: resolveGithub,
  routes: (file: GithubFile) =>
    [
      [['github', 'repos'], file.repos],
      [['github', 'labels'], file.labels],
    ] as const,
  describe: describeGithub,
  summary: githubSummary,
  warnings: githubWarnings,
  secrets: (github: GithubSection) => [github.webhookSecret, github.privateKey],
} satisfies ConfigSlice<typeof githubEnvShape, GithubEnv, GithubFile, GithubSection>;

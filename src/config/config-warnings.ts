/**
 * A configuration that is valid but does less than its owner surely meant: an integration that is on
 * with nothing that could ever start a run through it, or a link to a tracker that is off. It starts
 * (the owner may be setting things up step by step), but `serve` logs each warning at start and
 * `config check` prints them, with the key to add.
 */
import type { ConfigProblem } from './problems.js';
import type { AppConfig } from './types.js';

/** The warnings of a loaded configuration; `label` names the config file as its problems do. */
export function configWarnings(config: AppConfig, label: string): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  const github = config.github;
  if (github.enabled && Object.keys(github.repos).length === 0) {
    const labels = Object.keys(github.labels).length > 0 ? ' (a trigger label counts only on a repository listed there)' : '';
    warnings.push({
      where: `${label}: github.repos`,
      message: `GitHub is on, but no repository is listed: every repository is ignored${labels}, so nothing on GitHub can start a run`,
      hint: 'add the repositories to serve, e.g. github: { repos: { "acme/web": {} } }, or "*": {} for every repository the App is installed on',
    });
  }
  const jira = config.jira;
  if (jira.enabled && Object.keys(jira.labels).length === 0) {
    warnings.push({
      where: `${label}: jira.labels`,
      message: `Jira is on, but no trigger label is listed: labelling an issue starts nothing, only a comment "${jira.handle} new <what to do>" does`,
      hint: 'add the label that starts a run, e.g. jira: { labels: { agent: {} } }',
    });
  }
  if (config.slack.enabled && config.slack.linkLinearIssues && !config.linear.enabled) {
    warnings.push({
      where: `${label}: slack.link_linear_issues`,
      message: 'is true, but Linear is off: a mention naming a Linear issue starts its run without the issue',
      hint: 'turn Linear on with LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET, or set it to false',
    });
  }
  if (config.slack.enabled && config.slack.linkJiraIssues && !config.jira.enabled) {
    warnings.push({
      where: `${label}: slack.link_jira_issues`,
      message: 'is true, but Jira is off: a mention naming a Jira issue starts its run without the issue',
      hint: 'turn Jira on with JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET, or set it to false',
    });
  }
  return warnings;
}

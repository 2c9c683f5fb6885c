import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli-context.js';
import { tempDir } from '../helpers/spawn-cli.js';

/*
 * What `config check` and the start say about a configuration that cannot work: a place on a
 * surface that is off stops both (exit 2, the key and what to turn on); an integration on with
 * nothing that could start a run is a warning, printed on stderr (stdout stays JSON with --json).
 */

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const GITHUB = { GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY: PEM.trim().replace(/\n/g, '\\n'), GITHUB_WEBHOOK_SECRET: 'gh-config-check-secret' };

/** The CLI in a fresh folder holding `yaml` as agent-bridge.yml, with only `env` (and an unused database path) set. */
function inFolder(yaml: string, env: Record<string, string> = {}) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'agent-bridge.yml'), yaml);
  return (args: string[]) => runCliInProcess(args, { DATABASE_PATH: join(cwd, 'bridge.db'), ...env }, cwd);
}

const NOTIFY_SLACK = 'schedules:\n  - name: nightly\n    cron: "0 3 * * *"\n    prompt: Update the dependencies.\n    notify: { slack_channel: C0999ZZZZ }\n';

describe('a Slack channel in the file while Slack is off', () => {
  it.each([
    ['config check', ['config', 'check', '--offline']],
    ['serve', ['serve']],
  ])('%s exits 2 naming the key and what to turn on', async (_name, args) => {
    const result = await inFolder(NOTIFY_SLACK)(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('agent-bridge.yml: schedules[0].notify.slack_channel: schedule "nightly" reports to a Slack channel, but Slack is off');
    expect(result.stderr).toContain('turn Slack on with SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)');
  });

  it('commands that only read the database still run: the places are the service’s concern', async () => {
    const result = await inFolder(NOTIFY_SLACK)(['schedules', 'list', '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ name: string }>).map((schedule) => schedule.name)).toEqual(['nightly']);
  });
});

describe('a GitHub App key whose body is damaged', () => {
  it('config check exits 2 naming the variable and where GitHub gives the key, never the key', async () => {
    const damaged = PEM.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!');
    const result = await inFolder('github: { repos: { "*": {} } }\n', { ...GITHUB, GITHUB_PRIVATE_KEY: damaged })(['config', 'check', '--offline']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('GITHUB_PRIVATE_KEY: holds a PEM block that is not a readable private key');
    expect(result.stderr).toContain('General → Private keys → Generate a private key');
    for (const line of damaged.split('\n').slice(1, 4)) expect(result.stderr).not.toContain(line.slice(4, 20));
  });
});

describe('GitHub on with no repository to serve', () => {
  const yaml = 'github:\n  labels:\n    agent: {}\n';

  it('config check passes (exit 0) and says the warning on stderr, with what to add', async () => {
    const result = await inFolder(yaml, GITHUB)(['config', 'check', '--offline']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Configuration is valid \(.*agent-bridge\.yml\), with 1 warning:\n/);
    expect(result.stdout).toContain('repos: none (every repository ignored); labels: 1 route: agent');
    expect(result.stderr).toBe(
      'warning: agent-bridge.yml: github.repos: GitHub is on, but no repository is listed: every repository is ignored ' +
        '(a trigger label counts only on a repository listed there), so nothing on GitHub can start a run ' +
        '(add the repositories to serve, e.g. github: { repos: { "acme/web": {} } }, or "*": {} for every repository the App is installed on)',
    );
  });

  it('config check --json keeps stdout JSON only and says the warning on stderr', async () => {
    const result = await inFolder(yaml, GITHUB)(['config', 'check', '--offline', '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { github: { enabled: boolean } }).github.enabled).toBe(true);
    expect(result.stderr).toMatch(/^warning: agent-bridge\.yml: github\.repos: GitHub is on, but no repository is listed/);
  });
});

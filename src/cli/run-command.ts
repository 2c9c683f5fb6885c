import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isTerminalState, type AgentConfig, type AgentRuns, type RunItem } from '../core/ports/agent-runs.js';
import { parseDuration } from '../config-kit/duration.js';
import { printJson, withClient, type CliContext } from './context.js';
import { ExitCode, ExitWith, UsageError } from './exit-codes.js';
import { pullRequestLinks, statusText } from './format.js';
import { runViaService } from './run-via-service.js';

interface RunOptions {
  title?: string;
  name?: string;
  model?: string;
  environment?: string;
  skill?: string;
  basePrompt?: string;
  mcp?: string;
  agent?: string;
  factory?: string;
  wait?: boolean;
  poll: string;
  json?: boolean;
}

/** `--mcp` takes JSON text or the path of a JSON file: an object keyed by server name. */
export function parseMcpOption(value: string, cwd: string): Record<string, unknown> {
  const text = value.trimStart().startsWith('{') ? value : readMcpFile(value, cwd);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--mcp: not valid JSON (${(error as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UsageError('--mcp: expected a JSON object keyed by server name, e.g. {"docs": {"url": "https://…"}}');
  }
  return parsed as Record<string, unknown>;
}

function readMcpFile(path: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, path), 'utf8');
  } catch {
    throw new UsageError(`--mcp: "${path}" is neither JSON text nor a readable file`);
  }
}

/** The run config the flags describe. CLI runs are named `cli` unless `--name` says otherwise (docs/configuration.md). */
export function configFromOptions(options: RunOptions, cwd: string): AgentConfig {
  const config: AgentConfig = { name: options.name ?? 'cli' };
  if (options.model) config.model_id = options.model;
  if (options.environment) config.environment_id = options.environment;
  if (options.skill) config.skill_spec = options.skill;
  if (options.basePrompt) config.base_prompt = options.basePrompt;
  if (options.mcp) config.mcp_servers = parseMcpOption(options.mcp, cwd);
  return config;
}

async function startRun(client: AgentRuns, prompt: string, options: RunOptions, cwd: string) {
  if (options.factory) {
    const conflicting = ['name', 'model', 'environment', 'skill', 'basePrompt', 'mcp', 'agent'].filter((key) => options[key as keyof RunOptions] !== undefined);
    if (conflicting.length > 0) {
      throw new UsageError(
        `--factory takes no run config: drop ${conflicting.map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
      );
    }
    return client.dispatchToFactory(options.factory, { prompt, ...(options.title && { title: options.title }) });
  }
  return client.createRun({
    prompt,
    config: configFromOptions(options, cwd),
    ...(options.title && { title: options.title }),
    ...(options.agent && { agent_identity_uid: options.agent }),
  });
}

/** Polls a run until it ends, printing each state change; returns the final run. */
export async function waitForRun(client: AgentRuns, runId: string, pollMs: number, context: CliContext, quiet: boolean): Promise<RunItem> {
  const started = context.now();
  let lastState: string | undefined;
  let announcedSession = false;
  for (;;) {
    const run = await client.getRun(runId);
    if (!quiet && run.state !== lastState) {
      const elapsed = ((context.now() - started) / 1000).toFixed(1).padStart(6);
      const status = statusText(run.status_message);
      context.out(`[${elapsed}s] ${run.state}${status ? `  ${status}` : ''}`);
      if (run.state === 'BLOCKED') {
        context.out(`         the agent is waiting for input: agent-bridge runs followup ${run.run_id} "<your answer>"`);
      }
    }
    if (!quiet && run.session_link && !announcedSession) {
      context.out(`         session: ${run.session_link}`);
      announcedSession = true;
    }
    lastState = run.state;
    if (isTerminalState(run.state)) return run;
    await context.sleep(pollMs);
  }
}

function printOutcome(run: RunItem, context: CliContext): void {
  if (run.state === 'SUCCEEDED') {
    context.out(`Run ${run.run_id} succeeded.`);
    if (run.session_link) context.out(`Session: ${run.session_link}`);
    for (const url of pullRequestLinks(run)) context.out(`Pull request: ${url}`);
    return;
  }
  const status = statusText(run.status_message);
  context.out(`Run ${run.run_id} ended ${run.state}${status ? `: ${status}` : '.'}`);
  if (run.session_link) context.out(`Session: ${run.session_link}`);
}

/** The flags that shape the run config: only a run API called directly takes them. */
const CONFIG_FLAGS: Array<[keyof RunOptions, string]> = [
  ['name', '--name'],
  ['model', '--model'],
  ['environment', '--environment'],
  ['skill', '--skill'],
  ['basePrompt', '--base-prompt'],
  ['mcp', '--mcp'],
  ['agent', '--agent'],
  ['factory', '--factory'],
];

/** Without AGENT_API_BASE_URL the service starts the run on its own routes: a config flag would be silently dropped. */
function refuseConfigFlags(options: RunOptions): void {
  const given = CONFIG_FLAGS.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (given.length === 0) return;
  throw new UsageError(
    `${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} AGENT_API_BASE_URL: without it the run is handed to the agent-bridge service, ` +
      'which starts it on its configured defaults (agent-bridge.yml `defaults`). Drop them, or set AGENT_API_BASE_URL and AGENT_API_KEY to call the run API directly',
  );
}

export function registerRunCommand(program: Command, context: CliContext): void {
  program
    .command('run')
    .description(
      'start a run of the cloud agent and print its id (with --wait: follow it to the end); without AGENT_API_BASE_URL the running agent-bridge service on this folder’s database starts it',
    )
    .argument('<prompt>', 'what the agent should do')
    .option('--title <title>', 'run title (default: chosen by the run API)')
    .option('--name <name>', 'config name the run is filed under (default: cli)')
    .option('--model <model-id>', 'model_id of the run config')
    .option('--environment <environment-id>', 'environment_id of the run config')
    .option('--skill <skill-spec>', 'skill_spec of the run config')
    .option('--base-prompt <text>', 'base_prompt of the run config')
    .option('--mcp <json|file>', 'mcp_servers: JSON object keyed by server name, or a file holding it')
    .option('--agent <uid>', 'agent_identity_uid to run as')
    .option('--factory <uid>', 'dispatch to this factory instead (takes no run config)')
    .option('--wait', 'follow the run to its end; exit 0 on SUCCEEDED, 1 otherwise')
    .option('--poll <duration>', 'how often --wait asks for the state', '500ms')
    .option('--json', 'print JSON only (the created run, or with --wait the final run)')
    .action(async (prompt: string, options: RunOptions) => {
      if (!prompt.trim()) throw new UsageError('<prompt> is empty: say what the agent should do');
      const pollMs = parseDuration(options.poll);
      if (pollMs === undefined || pollMs < 100) throw new UsageError('--poll: expected a duration of at least 100ms, e.g. 500ms or 2s');
      if (!context.env['AGENT_API_BASE_URL']) {
        refuseConfigFlags(options);
        return runViaService(context, prompt, options, pollMs);
      }
      await withClient(context, async (client) => {
        const created = await startRun(client, prompt, options, context.cwd);
        if (!options.wait) {
          if (options.json) printJson(context, created);
          else {
            context.out(created.run_id);
            context.err(`Started run ${created.run_id} (${created.state}). Follow it with: agent-bridge runs get ${created.run_id}`);
          }
          return;
        }
        if (!options.json) context.out(`Started run ${created.run_id}.`);
        const final = await waitForRun(client, created.run_id, pollMs, context, options.json === true);
        if (options.json) printJson(context, final);
        else printOutcome(final, context);
        if (final.state !== 'SUCCEEDED') throw new ExitWith(ExitCode.runNotSucceeded);
      });
    });
}

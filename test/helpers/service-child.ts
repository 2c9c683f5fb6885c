import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startTs, tempDir, type RunningCli } from './spawn-cli.js';

/** The crash tests' child: the real service with a file-backed notifier (see the file's own comment). */
export const SERVICE_CHILD = join(ROOT, 'test/lifecycle/service-child.ts');

/** One JSON line the child's notifier wrote (a delivery, or an attempt at one). */
export interface ChildLine {
  key: string;
  kind: string;
  state?: string;
  runId?: string;
}

export interface ChildWorkspace {
  dir: string;
  db: string;
  notifyFile: string;
  attemptsFile: string;
  /** The messages delivered so far, one per key. */
  delivered(): ChildLine[];
  /** Every notifier call so far, duplicates included. */
  attempts(): ChildLine[];
}

const readLines = (file: string): ChildLine[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text) as ChildLine)
    : [];

/** A fresh folder (named from `prefix`) with `yaml` as its agent-bridge.yml, where a child keeps its database and files. */
export function childWorkspace(prefix: string, yaml: string): ChildWorkspace {
  const dir = tempDir(prefix);
  writeFileSync(join(dir, 'agent-bridge.yml'), yaml);
  const files = { dir, db: join(dir, 'bridge.db'), notifyFile: join(dir, 'notify.jsonl'), attemptsFile: join(dir, 'attempts.jsonl') };
  return { ...files, delivered: () => readLines(files.notifyFile), attempts: () => readLines(files.attemptsFile) };
}

/**
 * Starts {@link SERVICE_CHILD} in `dir` (its database and notifier files there, as {@link childWorkspace}
 * names them) against the run API `agentApi`, on a random loopback port with warnings only; `env`
 * adds surfaces and the crash switches. The caller stops it.
 */
export function startServiceChild(dir: string, agentApi: { baseUrl: string; apiKey: string }, env: Record<string, string> = {}): RunningCli {
  return startTs(SERVICE_CHILD, {
    cwd: dir,
    env: {
      AGENT_API_BASE_URL: agentApi.baseUrl,
      AGENT_API_KEY: agentApi.apiKey,
      DATABASE_PATH: join(dir, 'bridge.db'),
      NOTIFY_FILE: join(dir, 'notify.jsonl'),
      ATTEMPTS_FILE: join(dir, 'attempts.jsonl'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
}

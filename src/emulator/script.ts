/**
 * Scripted outcomes: `emulate: …` directives inside a prompt decide how an emulated run ends, so a
 * demo or a test can ask for a failure, a block or a pull request through the ordinary API.
 */
import { isTerminalState } from '../core/ports/agent-runs.js';
import { isErrorCode, type ProblemCode } from './problem.js';

export interface RunScript {
  /**
   * First `fail`/`error` directive in prompt order; later ones are ignored. A first word from the
   * SDK's ErrorCode set (`emulate: fail environment_setup_failed npm install failed`) is its code.
   */
  outcome?: { kind: 'fail' | 'error'; message: string; code?: ProblemCode };
  /** `emulate: block [question]`: the run waits for a follow-up after its first work period. */
  block?: { question: string };
  /** `emulate: pr`: success carries a pull-request artifact. */
  pr: boolean;
  /** `emulate: slow 5s`: how long INPROGRESS lasts instead of the work timing. */
  slowMs?: number;
  /** `emulate: state X`: states passed through between CLAIMED and INPROGRESS, in prompt order. */
  passThrough: string[];
}

const DEFAULT_FAIL_MESSAGE = 'The agent could not complete the task';
const DEFAULT_ERROR_MESSAGE = 'The run stopped on an internal error';
const DEFAULT_QUESTION = 'please confirm how to proceed';

/** Parses `<integer><ms|s|m>`; anything else is ignored so a typo never breaks a run. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)\s*(ms|s|m)$/i.exec(text.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = (match[2] ?? 'ms').toLowerCase();
  return unit === 'm' ? amount * 60_000 : unit === 's' ? amount * 1000 : amount;
}

/**
 * Reads every `emulate:` directive of a prompt. Directives are case-insensitive and may stand
 * anywhere in a line (a Slack mention or a quote marker may precede them); the argument runs to the
 * end of the line or to the next directive. Unknown directives are ignored.
 */
export function parseScript(prompt: string): RunScript {
  const script: RunScript = { pr: false, passThrough: [] };
  for (const line of prompt.split(/\r?\n/)) {
    const parts = line.split(/emulate:/i);
    for (const part of parts.slice(1)) {
      const match = /^\s*([a-z]+)\b\s*(.*)$/is.exec(part);
      if (!match) continue;
      applyDirective(script, (match[1] ?? '').toLowerCase(), (match[2] ?? '').trim());
    }
  }
  return script;
}

function applyDirective(script: RunScript, verb: string, argument: string): void {
  switch (verb) {
    case 'fail':
    case 'error': {
      if (script.outcome) return;
      const [first = '', ...rest] = argument.split(/\s+/);
      const code = isErrorCode(first) ? first : undefined;
      const message = (code ? rest.join(' ') : argument) || (verb === 'fail' ? DEFAULT_FAIL_MESSAGE : DEFAULT_ERROR_MESSAGE);
      script.outcome = code ? { kind: verb, message, code } : { kind: verb, message };
      return;
    }
    case 'block':
      script.block ??= { question: argument || DEFAULT_QUESTION };
      return;
    case 'pr':
      script.pr = true;
      return;
    case 'slow': {
      const ms = parseDuration(argument);
      if (ms !== undefined) script.slowMs ??= ms;
      return;
    }
    case 'state': {
      const state = argument.split(/\s+/)[0]?.toUpperCase() ?? '';
      // A terminal state "passed through" would end the run for every observer; not a pass-through.
      if (/^[A-Z][A-Z0-9_]*$/.test(state) && !isTerminalState(state)) script.passThrough.push(state);
      return;
    }
    default:
      return;
  }
}

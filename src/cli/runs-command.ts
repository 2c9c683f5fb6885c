import { Option, type Command } from 'commander';
import type { AgentRuns, ListRunsQuery, RunItem } from '../core/ports/agent-runs.js';
import { printJson, withClient, type CliContext } from './context.js';
import { UsageError } from './exit-codes.js';
import { renderRunDetails, renderRunTable } from './format.js';
import { placeLabel, runPlaces } from './run-places.js';
import { SURFACE_MODULES } from '../surface-list.js';

interface ListOptions {
  state?: string[];
  name?: string;
  model?: string;
  source?: string;
  limit: string;
  all?: boolean;
  json?: boolean;
}

const MAX_PAGE = 500;

function parseLimit(text: string): number {
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit: expected a whole number of at least 1, got "${text}"`);
  return limit;
}

/** Runs newest first: `limit` of them, or every one with `all`, paging with the cursor. */
export async function collectRuns(client: AgentRuns, filters: Omit<ListRunsQuery, 'cursor' | 'limit'>, limit: number, all: boolean): Promise<RunItem[]> {
  const runs: RunItem[] = [];
  const pageSize = all ? MAX_PAGE : Math.min(limit, MAX_PAGE);
  for await (const run of client.allRuns({ ...filters, limit: pageSize })) {
    runs.push(run);
    if (!all && runs.length >= limit) break;
  }
  return runs;
}

export function registerRunsCommand(program: Command, context: CliContext): void {
  const runs = program.command('runs').description('list, inspect, steer and stop runs');

  runs
    .command('list')
    .description('runs, newest first, as a table (id, state, title, name, age)')
    .addOption(new Option('--state <state...>', 'only runs in these states (repeatable, e.g. --state QUEUED INPROGRESS)'))
    .option('--name <name>', 'only runs whose config name is this')
    .option('--model <model-id>', 'only runs of this model')
    .option('--source <source>', 'only runs from this source')
    .option('--limit <n>', 'how many runs to show', '20')
    .option('--all', 'every matching run (follows the pages)')
    .option('--json', 'print a JSON array of runs only')
    .action(async (options: ListOptions) => {
      const limit = parseLimit(options.limit);
      const states = options.state
        ?.flatMap((state) => state.split(','))
        .map((state) => state.trim().toUpperCase())
        .filter(Boolean);
      const filters: Omit<ListRunsQuery, 'cursor' | 'limit'> = {
        ...(states && states.length > 0 && { state: states }),
        ...(options.name && { name: options.name }),
        ...(options.model && { model_id: options.model }),
        ...(options.source && { source: options.source }),
      };
      await withClient(context, async (client) => {
        const found = await collectRuns(client, filters, limit, options.all === true);
        if (options.json) printJson(context, found);
        else context.out(renderRunTable(found, context.now()));
      });
    });

  runs
    .command('get')
    .description(
      `one run in full: state, status, session link, pull requests, prompt, and every place that carries it (${SURFACE_MODULES.map((module) => module.title).join(', ')})`,
    )
    .argument('<run-id>')
    .option('--json', 'print the run as JSON only (every field the API sent)')
    .action(async (runId: string, options: { json?: boolean }) => {
      await withClient(context, async (client) => {
        const run = await client.getRun(runId);
        const places = await runPlaces(context, runId);
        if (options.json) printJson(context, places ? { ...run, places } : run);
        else context.out(renderRunDetails(run, context.now()) + (places ? `\n${placesText(places)}` : ''));
      });
    });

  runs
    .command('followup')
    .description('send a follow-up message to a run (an ended run continues)')
    .argument('<run-id>')
    .argument('<message>')
    .action(async (runId: string, message: string) => {
      if (!message.trim()) throw new UsageError('<message> is empty: say what the agent should do next');
      await withClient(context, async (client) => {
        await client.sendFollowup(runId, message);
        context.out(`Follow-up sent to run ${runId}.`);
      });
    });

  runs
    .command('cancel')
    .description('cancel a run that is queued or in progress')
    .argument('<run-id>')
    .action(async (runId: string) => {
      await withClient(context, async (client) => {
        await client.cancelRun(runId);
        context.out(`Cancelled run ${runId}.`);
      });
    });
}

/** The places of a run, one a line, as `runs get` prints them after the run. */
function placesText(places: readonly string[]): string {
  return ['Places:', ...places.map((place) => `  ${placeLabel(place)}  (${place})`)].join('\n');
}

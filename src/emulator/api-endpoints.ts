/**
 * The /api/v1 endpoints of the Cloud Agent Run API: validation, then one engine call each.
 * Fault injection, the request log and authentication happen before these, in `emulator.ts`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RunItem } from '../core/ports/agent-runs.js';
import { callerOf, requireVisible, type EmulatorContext } from './context.js';
import { encodeCursor } from './cursor.js';
import type { CreateRunInput, FactoryRunInput } from './engine-types.js';
import { isPlainObject, optionalString, readJsonObject, requireText, sendJson } from './http-util.js';
import { badRequest } from './problem.js';
import { parseListQuery } from './query.js';
import type { EmulatorEndpoint } from './router.js';

const SKILL_EXAMPLE = 'owner/repo:path/to/SKILL.md';

/** A skill given as `field`: absent, or a non-blank string. */
function optionalSkill(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field} must be a skill spec such as ${SKILL_EXAMPLE}`);
  return value;
}

/** As the SDK's AgentRunParams: `prompt` is required unless a skill is given (`skill` or `config.skill_spec`). */
function parseCreate(body: Record<string, unknown>): CreateRunInput {
  const input: CreateRunInput = {};
  const config = body['config'];
  if (config !== undefined && config !== null) {
    if (!isPlainObject(config)) throw badRequest('config must be an object');
    if (config['name'] !== undefined && typeof config['name'] !== 'string') throw badRequest('config.name must be a string');
    optionalSkill(config['skill_spec'], 'config.skill_spec');
    input.config = config;
  }
  const skill = optionalSkill(body['skill'], 'skill');
  if (skill !== undefined) input.skill = skill;
  const hasSkill = skill !== undefined || typeof input.config?.skill_spec === 'string';
  const prompt = body['prompt'];
  const absent = prompt === undefined || prompt === null;
  if (absent && !hasSkill) throw badRequest('prompt is required unless a skill is given (skill or config.skill_spec)');
  const blank = absent || (typeof prompt === 'string' && prompt.trim() === '');
  if (!(blank && hasSkill)) input.prompt = requireText(body, 'prompt');
  const title = optionalString(body, 'title');
  if (title !== undefined) input.title = title;
  const identity = optionalString(body, 'agent_identity_uid');
  if (identity !== undefined) input.agent_identity_uid = identity;
  return input;
}

function parseFactory(body: Record<string, unknown>): FactoryRunInput {
  const input: FactoryRunInput = { prompt: requireText(body, 'prompt') };
  for (const field of ['title', 'ticket_ref', 'ticket_url'] as const) {
    const value = optionalString(body, field);
    if (value !== undefined) input[field] = value;
  }
  return input;
}

/** The route table of /api/v1, paths relative to the base. */
export function apiEndpoints(ctx: EmulatorContext): EmulatorEndpoint[] {
  const { engine } = ctx;

  // `task_id` is the SDK's deprecated, still required name of the run id.
  const created = (res: ServerResponse, run: RunItem): void => sendJson(res, 200, { run_id: run.run_id, state: run.state, task_id: run.run_id });

  // Every run belongs to the key that created it (the real API's creator).
  const create = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    created(res, engine.createRun({ ...parseCreate(await readJsonObject(req)), creator: callerOf(ctx, req) }));
  };

  return [
    { pattern: /^\/agent\/run$/, methods: { POST: create } },
    {
      pattern: /^\/agent\/runs$/,
      methods: {
        POST: create,
        GET: (req, res, _params, url) => {
          const filter = parseListQuery(url.searchParams);
          if (ctx.visibility === 'owner') filter.visibleTo = callerOf(ctx, req).uid;
          const result = engine.list(filter);
          const pageInfo = result.next ? { has_next_page: true, next_cursor: encodeCursor(result.next) } : { has_next_page: false };
          sendJson(res, 200, { runs: result.runs, page_info: pageInfo });
        },
      },
    },
    {
      pattern: /^\/agent\/runs\/([^/]+)$/,
      methods: {
        GET: (req, res, [runId = '']) => {
          requireVisible(ctx, req, runId);
          sendJson(res, 200, engine.get(runId));
        },
      },
    },
    {
      pattern: /^\/agent\/runs\/([^/]+)\/followups$/,
      methods: {
        POST: async (req, res, [runId = '']) => {
          const body = await readJsonObject(req);
          // An unknown run (or one another key created, in owner visibility) is a 404 even when the
          // body is also wrong: the run is the resource.
          requireVisible(ctx, req, runId);
          engine.sendFollowup(runId, requireText(body, 'message'));
          sendJson(res, 200, {});
        },
      },
    },
    {
      pattern: /^\/agent\/runs\/([^/]+)\/cancel$/,
      methods: {
        POST: async (req, res, [runId = '']) => {
          await readJsonObject(req);
          requireVisible(ctx, req, runId);
          sendJson(res, 200, engine.cancel(runId).run_id);
        },
      },
    },
    {
      pattern: /^\/factory\/([^/]+)\/runs$/,
      methods: {
        POST: async (req, res, [factoryUid = '']) => {
          created(res, engine.createFactoryRun(factoryUid, { ...parseFactory(await readJsonObject(req)), creator: callerOf(ctx, req) }));
        },
      },
    },
  ];
}

/**
 * The /_emulator endpoints: drive runs, read follow-ups and who created a run, inject faults, read the
 * request log, revoke a key, reset.
 * They take no authentication: the emulator is a local tool and these exist for tests and demos.
 */
import type { Artifact, StatusMessage } from '../core/ports/agent-runs.js';
import type { EmulatorContext } from './context.js';
import type { DrivePatch } from './engine-types.js';
import { isPlainObject, readJsonObject, requireText, sendJson } from './http-util.js';
import { ProblemError, badRequest } from './problem.js';
import type { EmulatorEndpoint } from './router.js';
import { parseFault } from './traffic.js';

function parseStatusMessage(value: unknown): string | StatusMessage {
  if (typeof value === 'string') return value;
  if (isPlainObject(value) && typeof value['message'] === 'string') {
    if (value['error_code'] !== undefined && typeof value['error_code'] !== 'string') {
      throw badRequest('status_message.error_code must be a string');
    }
    if (value['retryable'] !== undefined && typeof value['retryable'] !== 'boolean') {
      throw badRequest('status_message.retryable must be a boolean');
    }
    return value as unknown as StatusMessage;
  }
  throw badRequest('status_message must be a string or an object with a string message');
}

function parseArtifacts(value: unknown): Artifact[] {
  if (!Array.isArray(value)) throw badRequest('artifacts must be an array');
  return value.map((item, index) => {
    if (!isPlainObject(item) || typeof item['artifact_type'] !== 'string') {
      throw badRequest(`artifacts[${index}] must be an object with a string artifact_type`);
    }
    return item as Artifact;
  });
}

function parseDrive(body: Record<string, unknown>): { state: string; patch: DrivePatch } {
  const state = requireText(body, 'state').trim();
  const patch: DrivePatch = {};
  if (body['status_message'] !== undefined) patch.status_message = parseStatusMessage(body['status_message']);
  if (body['artifacts'] !== undefined) patch.artifacts = parseArtifacts(body['artifacts']);
  return { state, patch };
}

/** The route table of /_emulator, paths relative to it. */
export function testingEndpoints(ctx: EmulatorContext): EmulatorEndpoint[] {
  const { engine } = ctx;
  return [
    {
      pattern: /^\/runs\/([^/]+)\/state$/,
      methods: {
        POST: async (req, res, [runId = '']) => {
          const body = await readJsonObject(req);
          if (!engine.get(runId)) throw new ProblemError(404, `run ${runId} not found`);
          const { state, patch } = parseDrive(body);
          sendJson(res, 200, engine.drive(runId, state, patch));
        },
      },
    },
    {
      pattern: /^\/runs\/([^/]+)\/advance$/,
      methods: {
        POST: async (req, res, [runId = '']) => {
          await readJsonObject(req);
          sendJson(res, 200, engine.advance(runId));
        },
      },
    },
    {
      pattern: /^\/runs\/([^/]+)\/followups$/,
      methods: { GET: (_req, res, [runId = '']) => sendJson(res, 200, { followups: engine.followups(runId) }) },
    },
    {
      pattern: /^\/runs\/([^/]+)\/history$/,
      methods: { GET: (_req, res, [runId = '']) => sendJson(res, 200, { history: engine.history(runId) }) },
    },
    {
      // Which key created the run: its principal and the key's last 4 characters, never the key.
      pattern: /^\/runs\/([^/]+)\/creator$/,
      methods: {
        GET: (_req, res, [runId = '']) => {
          const creator = engine.creatorOf(runId);
          if (!creator) throw new ProblemError(404, `run ${runId} not found`);
          sendJson(res, 200, { type: creator.type, uid: creator.uid, key_last_four: creator.keyLastFour ?? null });
        },
      },
    },
    {
      // A key deleted at the provider: every API request with it answers 401 from now on.
      pattern: /^\/keys\/revoke$/,
      methods: {
        POST: async (req, res) => {
          ctx.keys.revoke(requireText(await readJsonObject(req), 'key'));
          sendJson(res, 200, {});
        },
      },
    },
    {
      pattern: /^\/faults$/,
      methods: {
        POST: async (req, res) => {
          ctx.faults.add(parseFault(await readJsonObject(req)));
          sendJson(res, 200, { faults: ctx.faults.pending() });
        },
        GET: (_req, res) => sendJson(res, 200, { faults: ctx.faults.pending() }),
        DELETE: (_req, res) => {
          ctx.faults.clear();
          sendJson(res, 200, {});
        },
      },
    },
    {
      pattern: /^\/requests$/,
      methods: {
        GET: (_req, res) => sendJson(res, 200, { requests: ctx.requests.all() }),
        DELETE: (_req, res) => {
          ctx.requests.clear();
          sendJson(res, 200, {});
        },
      },
    },
    {
      pattern: /^\/reset$/,
      methods: {
        POST: async (req, res) => {
          await readJsonObject(req);
          engine.reset();
          ctx.keys.reset();
          ctx.faults.clear();
          ctx.requests.clear();
          sendJson(res, 200, {});
        },
      },
    },
  ];
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App, HTTPReceiver } from '@slack/bolt';
import type { Logger } from '../core/ports/logger.js';
import { HttpError, sendJson } from '../http/http-error.js';
import type { Endpoint } from '../http/server.js';
import { signedBodyEdge } from '../http/signed-body.js';
import { inspectSlackRequest } from './inspect-request.js';
import { slackSignature } from './verify-signature.js';

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * `POST /slack/events`: the shared signed-body steps (`http/signed-body.ts`: refuse what the signature
 * headers already condemn — missing, stale — before reading, read the raw body within the server's
 * 1 MiB limit, verify the signature over those exact bytes, decode UTF-8), then check the shape and
 * hand the request on: an Events API event straight to Bolt's app (`handOnEvent`), anything else —
 * body already buffered — to Bolt's receiver. Bolt answers those, so the rest of the shared webhook
 * edge (parse, handle, answer) is not ours to use here.
 */
export function slackEventsEndpoint(options: {
  receiver: HTTPReceiver;
  app: Pick<App, 'processEvent'>;
  signingSecret: string;
  logger: Logger;
  now?: () => number;
}): Endpoint {
  const edge = signedBodyEdge({
    verifier: slackSignature(options.signingSecret),
    refusal: (problem) => `request signature ${problem}`,
    ...(options.now && { now: options.now }),
  });
  return {
    method: 'POST',
    path: '/slack/events',
    acknowledges: true,
    body: edge.body,
    handle: async (req: IncomingMessage, res: ServerResponse, readBody) => {
      const { raw, text } = await edge.read(req, readBody);
      const inspection = inspectSlackRequest(header(req, 'content-type'), text);
      if (inspection.action === 'reject') throw new HttpError(400, 'malformed', inspection.reason);
      if (inspection.action === 'refuse') {
        options.logger.warn({ reason: inspection.reason }, 'slack command refused');
        return sendJson(res, 200, inspection.answer);
      }
      if (inspection.action === 'ignore') {
        options.logger.debug({ reason: inspection.reason }, 'slack request ignored');
        return sendJson(res, 200, { ok: true });
      }
      const callback = inspection.eventCallback;
      // A workflow step's event waits for its listener's ack (Bolt's receiver times that): not ours to short-cut.
      if (callback && callback.event['type'] !== 'function_executed') return handOnEvent(options.app, req, res, callback);
      // Bolt reads `rawBody` when present instead of the (already consumed) stream, and parses form
      // bodies only under the exact content type.
      Object.assign(req, { rawBody: raw });
      if (header(req, 'content-type')?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
        req.headers['content-type'] = 'application/x-www-form-urlencoded';
      }
      options.receiver.requestListener(req, res);
    },
  };
}

/**
 * An Events API event, given to Bolt's app as its HTTP receiver would give it (processBeforeResponse:
 * answered once the listeners are done, so a trigger is stored before Slack hears 200), without the
 * receiver's second parse of the body and its per-request 3 s timer: Bolt acknowledges an event before
 * its listeners run. Bolt's answer to an acknowledged event is a bare 200. A listener's failure
 * propagates and the server answers 500, as Bolt's receiver does, so Slack retries.
 */
async function handOnEvent(app: Pick<App, 'processEvent'>, req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): Promise<void> {
  const retryNum = Number.parseInt(header(req, 'x-slack-retry-num') ?? '', 10);
  const retryReason = header(req, 'x-slack-retry-reason');
  await app.processEvent({
    body,
    ack: () => Promise.resolve(),
    ...(Number.isInteger(retryNum) && { retryNum }),
    ...(retryReason !== undefined && { retryReason }),
  });
  res.writeHead(200).end();
}

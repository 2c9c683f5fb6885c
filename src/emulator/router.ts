/**
 * A minimal path router: regular expressions per path, handlers per method, and the 404/405
 * answers the run API gives for an unknown path or a wrong method.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from './problem.js';
import { decodeSegment } from './http-util.js';

/** `params` are the decoded capture groups of the route's pattern. */
export type Handler = (req: IncomingMessage, res: ServerResponse, params: string[], url: URL) => Promise<void> | void;

export interface EmulatorEndpoint {
  pattern: RegExp;
  methods: Partial<Record<string, Handler>>;
}

/**
 * Runs the handler for `path`, or throws the problem the service would answer: 404 for a path no
 * route knows (or whose segments do not decode), 405 with `Allow` for a known path and wrong method.
 */
export async function dispatch(routes: EmulatorEndpoint[], req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const params: string[] = [];
    for (const raw of match.slice(1)) {
      const decoded = decodeSegment(raw ?? '');
      if (decoded === undefined || decoded === '') throw new ProblemError(404, `no resource at ${path}`);
      params.push(decoded);
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const handler = route.methods[method];
    if (!handler) {
      const allow = Object.keys(route.methods).join(', ');
      throw new ProblemError(405, `${method} is not allowed on ${path}; use ${allow}`, { headers: { allow } });
    }
    await handler(req, res, params, url);
    return;
  }
  throw new ProblemError(404, `no resource at ${path}`);
}

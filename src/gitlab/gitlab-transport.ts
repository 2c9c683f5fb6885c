/**
 * How agent-bridge talks to GitLab's REST v4 API: one `fetch` per call with the token in
 * `PRIVATE-TOKEN`, a deadline, and a failure as a `GitlabCallError` carrying the status and GitLab's
 * words with the token taken out — never the token.
 */

/** A failed call to GitLab: its status and GitLab's message, without the token. */
export class GitlabCallError extends Error {
  override readonly name = 'GitlabCallError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** How long one call may take before it counts as no answer. */
const CALL_TIMEOUT_MS = 15_000;

/** The calls of the client for the instance at `url` (`GITLAB_URL`), acting with `token`. */
export function gitlabTransport(settings: { url: string; token: string }) {
  const base = `${settings.url}/api/v4`;
  const scrub = (text: string) => text.split(settings.token).join('[token]');

  /** A call's answer as it came: the response, and its body as text unless `keepBody` leaves it to the caller. */
  const send = async (what: string, method: string, path: string, body?: object, keepBody = false): Promise<{ response: Response; text: string }> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { 'PRIVATE-TOKEN': settings.token, accept: 'application/json', ...(body && { 'content-type': 'application/json' }) },
        ...(body && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (error) {
      throw new GitlabCallError(`GitLab did not answer to ${what}: ${scrub((error as Error).name)}`, undefined, undefined);
    }
    const text = keepBody && response.ok ? '' : await response.text();
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('retry-after'));
      const said = scrub(text).replace(/\s+/g, ' ').slice(0, 200);
      throw new GitlabCallError(
        `GitLab answered ${response.status} to ${what}${said ? `: ${said}` : ''}`,
        response.status,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      );
    }
    return { response, text };
  };

  const call = async <T>(what: string, method: string, path: string, body?: object): Promise<{ status: number; json: T }> => {
    const { response, text } = await send(what, method, path, body);
    try {
      return { status: response.status, json: (text === '' ? undefined : JSON.parse(text)) as T };
    } catch {
      throw new GitlabCallError(`GitLab answered ${what} with a body that is not JSON`, response.status, undefined);
    }
  };

  return { send, call };
}

/**
 * The last `maxBytes` bytes of a body read as a stream, so a log of many megabytes is never held
 * whole; decoded as UTF-8 (a character cut at the start becomes U+FFFD).
 */
export async function tailOf(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    kept.push(Buffer.from(chunk));
    size += chunk.byteLength;
    while (kept.length > 1 && size - kept[0]!.byteLength >= maxBytes) size -= kept.shift()!.byteLength;
  }
  const all = Buffer.concat(kept);
  return all.subarray(Math.max(0, all.byteLength - maxBytes)).toString('utf8');
}

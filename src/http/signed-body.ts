import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';
import type { Endpoint, ReadRequestBody } from './server.js';
import type { SignatureProblem, Verdict, WebhookVerifier } from './webhook-verifier.js';

export interface SignedBodyOptions {
  verifier: WebhookVerifier;
  /** The largest body taken (413 above it, before reading when declared); default the server's. */
  limitBytes?: number;
  /** The message of a 401 for each problem; default names the verifier's credential. */
  refusal?: (problem: SignatureProblem) => string;
  /** The clock of timestamp windows (default `Date.now`). */
  now?: () => number;
}

/** A body read within its limit, proven to be the platform's, and decoded. */
export interface SignedBody {
  /** The exact bytes received. */
  raw: Buffer;
  /** Those bytes as text: valid UTF-8, or the request was refused. */
  text: string;
  /** What a token said of its sender (a bearer token's claims), if the credential says anything. */
  claims: Readonly<Record<string, unknown>> | undefined;
}

/** The signed-body steps of a webhook route: what its `Endpoint.body` says, and how its handler reads. */
export interface SignedBodyEdge {
  body: NonNullable<Endpoint['body']>;
  read(req: IncomingMessage, readBody: ReadRequestBody): Promise<SignedBody>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const defaultRefusal = (credential: string) => (problem: SignatureProblem) =>
  problem === 'stale'
    ? `${credential}: the request was sent outside the time allowed (a replay, or a clock far off)`
    : `${credential} is missing or does not match the body`;

/**
 * The steps every signed webhook takes, in one order, with one error mapping: the verifier's refusal
 * on the headers before a byte of the body is read (401 `invalid_signature`, answered by the server,
 * which closes the connection), a credential checked without the body still before reading it, the
 * raw body read within the limit and the shared budget (413, 408, 503: `readBody`), the signature
 * verified over those exact bytes (401), and the bytes decoded as UTF-8 — invalid UTF-8 is 400
 * `malformed` on every route, never decoded into replacement characters.
 */
export function signedBodyEdge(options: SignedBodyOptions): SignedBodyEdge {
  const { verifier } = options;
  const now = options.now ?? Date.now;
  const refusal = options.refusal ?? defaultRefusal(verifier.credential);
  const invalid = (problem: SignatureProblem) => new HttpError(401, 'invalid_signature', refusal(problem));
  return {
    body: {
      ...(options.limitBytes !== undefined && { limitBytes: options.limitBytes }),
      refuse: (req) => {
        const problem = verifier.refuse(req.headers, now());
        return problem ? invalid(problem) : undefined;
      },
    },
    read: async (req, readBody) => {
      const admitted: Verdict = verifier.admit ? await verifier.admit(req.headers, now()) : { ok: true };
      if (!admitted.ok) throw invalid(admitted.problem);
      const raw = await readBody();
      const verified: Verdict = verifier.verify ? await verifier.verify(req.headers, raw, now()) : { ok: true };
      if (!verified.ok) throw invalid(verified.problem);
      let text: string;
      try {
        text = utf8.decode(raw);
      } catch {
        throw new HttpError(400, 'malformed', 'body is not valid UTF-8');
      }
      const claims = admitted.claims || verified.claims ? { ...admitted.claims, ...verified.claims } : undefined;
      return { raw, text, claims };
    },
  };
}

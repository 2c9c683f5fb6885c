/**
 * A request written by hand on a raw TCP socket, for tests of what the server does before a body
 * is complete: send the head (and maybe part of the body), then watch for the answer's status and
 * for the server closing the connection. `fetch` cannot do this: it never sends half a body.
 */
import { connect, type Socket } from 'node:net';

export interface RawRequest {
  socket: Socket;
  /** The answer's status code, once its head arrived (never settles if none comes). */
  status: Promise<number>;
  /** The answer's headers (lower-cased names), once its head arrived. */
  headers: Promise<Record<string, string>>;
  /** The answer's body as sent until the connection closed ('' when no answer came). */
  answerBody: Promise<string>;
  /** Resolves when the connection is closed (by either side), with `Date.now()` at that moment. */
  closed: Promise<number>;
  /** `Date.now()` when the last written byte was handed to the kernel. */
  lastByteAt(): number;
  /**
   * The connection's local port once it connected, kept after the socket is destroyed (a reset from
   * the server destroys it, and `socket.localPort` then reads `undefined`); `undefined` if it never connected.
   */
  localPort(): number | undefined;
  /** Writes more body bytes; resolves once they are handed over (or the socket failed). */
  write(bytes: Buffer | string): Promise<void>;
}

/**
 * Opens a connection to `url`'s host and writes `method path` with `requestHeaders`, then `body` if given.
 * `halfOpen`: the client never closes its side when the server stops writing (as a hostile client
 * may not), so the connection ends only when the server lets go of it. `localAddress`: the address it
 * connects from (any of 127.0.0.0/8 on loopback), so that one test can be many senders.
 */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  requestHeaders: Record<string, string | number>,
  body?: Buffer | string,
  options: { halfOpen?: boolean; localAddress?: string } = {},
): RawRequest {
  const target = new URL(url);
  const socket = connect({
    host: target.hostname,
    port: Number(target.port),
    allowHalfOpen: options.halfOpen === true,
    ...(options.localAddress !== undefined && { localAddress: options.localAddress }),
  });
  // Errors (EPIPE, ECONNRESET) are how a refused body ends for the sender: `closed` reports them.
  socket.on('error', () => {});
  let localPort: number | undefined;
  socket.once('connect', () => (localPort = socket.localPort));
  let lastByteAt = Date.now();
  let answer = '';
  let headEnd = -1;
  const answered = new Promise<{ status: number; headers: Record<string, string> }>((resolve) => {
    const onData = (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (headEnd >= 0) return;
      const end = answer.indexOf('\r\n\r\n');
      const line = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      if (end < 0 || !line) return;
      headEnd = end;
      const fields: Record<string, string> = {};
      for (const field of answer.slice(0, end).split('\r\n').slice(1)) {
        const colon = field.indexOf(':');
        fields[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
      }
      resolve({ status: Number(line[1]), headers: fields });
    };
    socket.on('data', onData);
  });
  const status = answered.then((answer) => answer.status);
  const headers = answered.then((answer) => answer.headers);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  const answerBody = closed.then(() => (headEnd < 0 ? '' : answer.slice(headEnd + 4)));
  const write = (bytes: Buffer | string) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve();
      socket.write(bytes, (error) => {
        if (!error) lastByteAt = Date.now();
        resolve();
      });
    });
  const requestHead = [
    `${method} ${path} HTTP/1.1`,
    `host: ${target.host}`,
    ...Object.entries(requestHeaders).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  void write(requestHead);
  if (body !== undefined) void write(body);
  return { socket, status, headers, answerBody, closed, lastByteAt: () => lastByteAt, localPort: () => localPort, write };
}

/** Resolves with the promise's value, or `undefined` when it has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

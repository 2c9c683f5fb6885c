/**
 * When a batch of enqueued triggers is committed: `commit` runs once, in a later turn of the event
 * loop, and every trigger enqueued until then joins its transaction. It must not throw.
 *
 * The default is the next turn. The service passes its request turns (`RequestTurns`, one request's
 * handler a turn): the commit then waits for the requests already waiting to start, and their
 * triggers join it. Without that, under load every acknowledgement paid a commit of its own — a
 * quarter of the CPU at 100 concurrent senders (docs/benchmarks.md, "CPU per worked trigger").
 */
export type GroupCommit = (commit: () => void) => void;

/** The next turn of the event loop. */
export const nextTurn: GroupCommit = (commit) => {
  setImmediate(commit);
};

import type { Writable } from 'node:stream';
import type { Client, PoolClient } from 'pg';

/**
 * Statements asked for on one connection within a turn of the event loop reach the socket in
 * one write. `pg` writes each statement's messages with one system call; this corks the
 * connection's socket at its first statement of the turn and uncorks it once the turn's I/O
 * callbacks have run (setImmediate): a transaction's statements sent together (inOrder), or the
 * statements of requests that arrived together on the pipelined lane, then cost PostgreSQL's
 * backend one wake-up and the process one system call. A statement waits at most for the rest
 * of the turn it was asked for in. It reaches into `pg`'s connection (`connection.stream`, not
 * public API): test/coalescedWrites.test.ts fails should that change.
 */
export function coalesceWrites(client: Client | PoolClient): void {
  const { connection } = client as unknown as { connection: { stream: Writable } };
  const query = client.query;
  // The socket corked this turn: read when corking, since `pg` replaces its stream with a TLS one
  // once the server accepts SSL.
  let corked: Writable | undefined;
  const uncork = (): void => {
    corked?.uncork();
    corked = undefined;
  };
  client.query = function (this: Client, ...args: unknown[]) {
    if (!corked) {
      corked = connection.stream;
      corked.cork();
      setImmediate(uncork);
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as Client['query'];
}

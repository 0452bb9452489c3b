import { EventEmitter } from 'node:events';
import { Client } from 'pg';
import type { ClientConfig, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { coalesceWrites } from './coalescedWrites';
import { isDatabaseUnavailable } from './unavailable';

/**
 * A few connections in `pg`'s pipeline mode, shared by every caller, for statements that run on
 * their own (autocommit; transactions keep a pooled connection, whose statements must not
 * interleave with anyone else's). A statement is written as soon as it is asked for, without
 * waiting for the answer to the one before it, so under load PostgreSQL's backend finds several
 * waiting and is woken once for them, where a pooled connection per statement wakes an idle
 * backend each time: on a small machine that wake-up, paid in the socket write, is a large part
 * of a short statement's cost.
 *
 * A statement waits behind the ones sent before it on its connection, so no code may wait on a
 * lane statement while holding a lock another lane statement could wait for (none does: a
 * transaction's statements, and only they, run on its own connection).
 *
 * A connection that fails (or answers that the database is unavailable) is dropped, and the next
 * statement opens a new one; the statements it had in flight fail as any statement on a broken
 * connection does ("Connection terminated unexpectedly": the database is unavailable,
 * isDatabaseUnavailable). Emits 'connect' with each new connection's client, as `pg`'s Pool does.
 */
export class PipelinedLane extends EventEmitter<{ connect: [client: Client] }> {
  private readonly clients: Array<Client | undefined>;
  private turn = 0;
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    size: number,
    private readonly onError?: (err: Error) => void,
  ) {
    super();
    this.clients = new Array<Client | undefined>(size).fill(undefined);
  }

  query<R extends QueryResultRow>(q: QueryConfig): Promise<QueryResult<R>> {
    if (this.closed) return Promise.reject(new Error('The database handle is closed'));
    this.turn = (this.turn + 1) % this.clients.length;
    const slot = this.turn;
    const client = this.clients[slot] ?? this.open(slot);
    return client.query<R>(q).catch((err: unknown) => {
      // A backend that was terminated answers with its error before the socket closes: the
      // statements after it must not be queued on that connection meanwhile.
      if (isDatabaseUnavailable(err)) this.drop(slot, client);
      throw err;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = this.clients.filter((c): c is Client => c !== undefined);
    this.clients.fill(undefined);
    await Promise.all(open.map((c) => c.end().catch(() => undefined)));
  }

  /** A new connection in slot `slot`; statements asked for while it connects are sent once it has. */
  private open(slot: number): Client {
    const client = new Client({ ...this.config, pipeline: true });
    coalesceWrites(client);
    const drop = (): void => this.drop(slot, client);
    // Without a listener a broken connection's 'error' would end the process.
    client.on('error', (err) => {
      drop();
      this.onError?.(err);
    });
    client.on('end', drop);
    // A failed connect fails the statements waiting on it (the 'end' above drops it).
    client.connect().catch(drop);
    this.clients[slot] = client;
    this.emit('connect', client);
    return client;
  }

  /** Takes `client` out of its slot and closes it (if it still is open). */
  private drop(slot: number, client: Client): void {
    if (this.clients[slot] !== client) return;
    this.clients[slot] = undefined;
    client.end().catch(() => undefined);
  }
}

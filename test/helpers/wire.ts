import type { EventEmitter } from 'node:events';
import type { PoolClient } from 'pg';
import type { DbHandle } from '@svc/db';

/**
 * What the pool's connections of `db` write to PostgreSQL and are answered, in order: a
 * statement is logged by its first word when its message (a simple Query, or the Bind of a named
 * statement) is written to the socket, and when PostgreSQL's ReadyForQuery for it arrives, before
 * `pg` acts on it (which, unpipelined, is when it writes the next statement). Install it before
 * the pool's first connection; empty the array between checks.
 */
export function recordWire(db: DbHandle): string[] {
  const wire: string[] = [];
  db.pool.on('connect', (client: PoolClient) => {
    const { connection } = client as unknown as {
      connection: EventEmitter & { stream: { write: (chunk: unknown, ...rest: unknown[]) => boolean } };
    };
    const asked: string[] = [];
    const inFlight: string[] = [];
    const write = connection.stream.write.bind(connection.stream);
    connection.stream.write = (chunk: unknown, ...rest: unknown[]) => {
      const type = Buffer.isBuffer(chunk) ? String.fromCharCode(chunk[0]) : '';
      if ((type === 'Q' || type === 'B') && asked.length > 0) {
        const label = asked.shift()!;
        inFlight.push(label);
        wire.push(`send ${label}`);
      }
      return write(chunk, ...rest);
    };
    connection.prependListener('readyForQuery', () => {
      if (inFlight.length > 0) wire.push(`answer ${inFlight.shift()}`);
    });
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    // The statements' own calls (promise form); the pool's `query`, used by tests' helpers, passes a callback.
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (args.length === 1)
        asked.push((typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text).trim().split(/\s+/)[0]);
      return query(...args);
    };
  });
  return wire;
}

import { causeChain } from './causes';
import { adapterCauseOf, sqlStateOf } from './sqlState';

/**
 * Whether an error means the database cannot be reached right now (down, restarting, out of
 * connections, no pooled connection free in time, no answer in time), as opposed to a bug or bad
 * data: callers answer 503 and retry later.
 */
// P2028: an interactive transaction could not start (no pooled connection) or outlived its bound.
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
// SQLSTATE class 08 (connection exception) and 57P01–57P03 (shutdown, crash, starting up).
const SQLSTATE_UNAVAILABLE = /^(08...|57P0[123])$/;
const NODE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causeChain(err)) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (PRISMA_UNREACHABLE.has(code) || SQLSTATE_UNAVAILABLE.test(code) || NODE_SOCKET.has(code))) return true;
    const adapter = adapterCauseOf(e);
    if (adapter && (ADAPTER_KINDS.has(adapter.kind) || SQLSTATE_UNAVAILABLE.test(String(adapter.originalCode ?? '')))) return true;
    // Raw queries wrap the driver's failure in P2010 with only a message.
    if (
      code === 'P2010' &&
      /can't reach database server|connection (terminated|closed)|server closed the connection/i.test(String(e.message))
    )
      return true;
    if (
      /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout/i.test(String(e.message)) &&
      e.name === 'Error'
    )
      return true;
  }
  return false;
}

/** SQLSTATE 57014: the statement ran past its statement_timeout (a slow or busy database). */
const QUERY_CANCELED = '57014';

/** Whether a statement was cancelled for running past its deadline: capacity, not the caller's fault (503). */
export function isStatementTimeout(err: unknown): boolean {
  return sqlStateOf(err) === QUERY_CANCELED;
}

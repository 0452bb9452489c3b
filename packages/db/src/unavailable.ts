import { causeChain } from './causes';
import { adapterCauseOf } from './sqlState';

/**
 * Whether an error means the database cannot be reached right now (down, restarting, out of
 * connections), as opposed to a bug or bad data: callers answer 503 and retry later.
 */
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
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
    if (/Connection terminated|connection timeout/i.test(String(e.message)) && e.name === 'Error') return true;
  }
  return false;
}

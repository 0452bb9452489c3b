import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes an HTTP/1.1 request byte by byte over a plain socket (so a test controls exactly
 * what is sent, and what is *not*: a body announced but never sent, a chunked body with
 * no final chunk) and reads the answer until the server closes the connection or a
 * complete Content-Length answer has arrived. Rejects after `timeoutMs` with no answer.
 */
export function rawExchange(
  url: string,
  head: string,
  parts: Buffer[] = [],
  timeoutMs = 10_000,
  localAddress?: string,
): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port), localAddress });
    const received: Buffer[] = [];
    let done = false;
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    function parse(): RawAnswer | null {
      const text = Buffer.concat(received).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const status = Number(statusLine.split(' ')[1]);
      if (status === 100) {
        received.splice(0, received.length, Buffer.from(text.slice(end + 4), 'latin1'));
        return parse();
      }
      const body = text.slice(end + 4);
      if (headers['content-length'] !== undefined && Buffer.byteLength(body, 'latin1') < Number(headers['content-length'])) return null;
      return { status, headers, body: Buffer.from(body, 'latin1').toString('utf8') };
    }
    function finish(err: Error | null) {
      if (done) return;
      const answer = parse();
      if (!err && !answer) err = new Error('connection closed without a complete answer');
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (answer) resolve(answer);
      else reject(err);
    }
    socket.on('data', (d) => {
      received.push(d);
      if (parse()) finish(null);
    });
    socket.on('end', () => finish(null));
    socket.on('close', () => finish(null));
    // A server that answers early and closes may make our writes fail: the answer is what counts.
    socket.on('error', () => finish(null));
    socket.on('connect', () => {
      socket.write(head);
      for (const p of parts) socket.write(p);
    });
  });
}

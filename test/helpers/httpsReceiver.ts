import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A self-signed certificate for `localhost` / 127.0.0.1 / ::1, made once per test run with
 * `openssl`. The stack trusts it through the operator setting OUTBOUND_CA_FILE; nothing else does.
 */
export function testCertificate(): { certFile: string; cert: string; key: string } {
  const dir = path.join(process.env.SVC_TEST_DATA_DIR ?? path.join(os.tmpdir(), 'svc-test'), 'tls');
  mkdirSync(dir, { recursive: true });
  const certFile = path.join(dir, 'receiver-cert.pem');
  const keyFile = path.join(dir, 'receiver-key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-sha256',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'pipe' },
    );
  }
  return { certFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  body: any;
  at: number;
}

export type ReceiverHandler = (req: Received, res: ServerResponse) => void;

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
  requests: Received[];
  /** Replace the answer for later requests. */
  setHandler(handler: ReceiverHandler): void;
  /** Stops listening (connections are then refused) and keeps the port for `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export const ok: ReceiverHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"received":true}');
};

/** A real HTTPS server on 127.0.0.1 whose answers each test scripts. */
export async function startHttpsReceiver(handler: ReceiverHandler = ok): Promise<HttpsReceiver> {
  const { cert, key } = testCertificate();
  const requests: Received[] = [];
  let current = handler;
  let server: Server | undefined;
  let port = 0;

  function listen(): Promise<void> {
    const s = createServer({ cert, key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let body: unknown = raw.toString('utf8');
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          // not JSON
        }
        const rec: Received = { method: req.method!, path: req.url!, headers: req.headers, raw, body, at: Date.now() };
        requests.push(rec);
        current(rec, res);
      });
    });
    server = s as unknown as Server;
    return new Promise((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  async function down() {
    const s = server;
    server = undefined;
    if (!s) return;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }

  await listen();
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    requests,
    setHandler(h) {
      current = h;
    },
    down,
    up: listen,
    close: down,
  };
}

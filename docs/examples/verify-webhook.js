// Verifying svc webhooks in Node (no dependencies). Executed by test/webhooks.test.ts.
//
//   Svc-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]
//   <hex> = HMAC-SHA256("<t>.<raw body>") keyed with your endpoint secret (whsec_…, as written)
'use strict';
const crypto = require('node:crypto');

const TOLERANCE_SECONDS = 5 * 60;

/** True when `rawBody` (the exact bytes received) carries a valid, fresh signature. */
function verifySvcWebhook(rawBody, signatureHeader, secret, now = Math.floor(Date.now() / 1000)) {
  if (typeof signatureHeader !== 'string') return false;
  let t = '';
  const v1 = [];
  for (const part of signatureHeader.split(',')) {
    const i = part.indexOf('=');
    const key = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    if (key === 't') t = value;
    if (key === 'v1') v1.push(value); // one per valid secret while a secret rotation overlaps
  }
  if (!/^\d+$/.test(t) || Math.abs(now - Number(t)) > TOLERANCE_SECONDS) return false; // replayed or stale
  const expected = crypto.createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return v1.some((sig) => {
    const got = Buffer.from(sig, 'hex');
    return got.length === expected.length && crypto.timingSafeEqual(got, expected); // constant time
  });
}

module.exports = { verifySvcWebhook };

// A receiver: `SVC_WEBHOOK_SECRET=whsec_… node verify-webhook.js` (put TLS in front of it).
if (require.main === module) {
  const seen = new Set(); // use a database in production: deliveries can repeat, dedupe on the event id
  require('node:http')
    .createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks); // verify the raw bytes, never re-serialized JSON
        if (!verifySvcWebhook(raw, req.headers['svc-signature'], process.env.SVC_WEBHOOK_SECRET)) {
          res.writeHead(400).end('bad signature');
          return;
        }
        const event = JSON.parse(raw.toString('utf8'));
        if (!seen.has(event.id)) {
          seen.add(event.id);
          console.log(event.type, event.id); // handle it (quickly: answer 2xx within 15 s)
        }
        res.writeHead(204).end();
      });
    })
    .listen(Number(process.env.PORT ?? 3000));
}

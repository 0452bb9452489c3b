// A webhook receiver in Node that verifies svc deliveries with the official Standard Webhooks
// library (`npm install standardwebhooks`). Executed by test/webhooks.standard.test.ts.
//
//   SVC_WEBHOOK_SECRET=whsec_… PORT=3000 node receiver.js   (put TLS in front of it)
'use strict';
const http = require('node:http');
const { Webhook } = require('standardwebhooks');

const webhook = new Webhook(process.env.SVC_WEBHOOK_SECRET); // the endpoint secret, whsec_… as shown
const seen = new Set(); // use a database in production: deliveries can repeat, dedupe on the event id

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8'); // verify the raw body, never re-serialized JSON
    let event;
    try {
      // Checks webhook-signature (any of its v1 signatures) and that webhook-timestamp is within 5 minutes.
      event = webhook.verify(raw, req.headers);
    } catch {
      res.writeHead(400).end('bad signature');
      return;
    }
    if (!seen.has(req.headers['webhook-id'])) {
      seen.add(req.headers['webhook-id']);
      console.log(event.type, event.id); // handle it (quickly: answer 2xx within 15 s)
    }
    res.writeHead(204).end();
  });
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => console.log(`listening on ${server.address().port}`));

"""A webhook receiver in Python that verifies svc deliveries with the official Standard Webhooks
library (`pip install standardwebhooks`). Executed by test/webhooks.standard.test.ts.

    SVC_WEBHOOK_SECRET=whsec_… PORT=3000 python receiver.py   (put TLS in front of it)
"""

import os
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

webhook = Webhook(os.environ["SVC_WEBHOOK_SECRET"])  # the endpoint secret, whsec_… as shown
seen = set()  # use a database in production: deliveries can repeat, dedupe on the event id


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))  # the raw body, byte for byte
        try:
            # Checks webhook-signature (any of its v1 signatures) and that webhook-timestamp is within 5 minutes.
            event = webhook.verify(raw, dict(self.headers))
        except WebhookVerificationError:
            self.send_response(400)
            self.end_headers()
            return
        if self.headers["webhook-id"] not in seen:
            seen.add(self.headers["webhook-id"])
            print(event["type"], event["id"], flush=True)  # handle it (quickly: answer 2xx within 15 s)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "3000"))), Receiver)
print(f"listening on {server.server_address[1]}", flush=True)
server.serve_forever()

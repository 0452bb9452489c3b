"""Start a run and wait for its result, with the client openapi-python-client generates (docs/api.md).

Run it with SVC_BASE_URL, SVC_API_KEY and SVC_WORKFLOW_ID set, next to the generated `svc_client`.
"""

import json
import os

import httpx
from svc_client import AuthenticatedClient
from svc_client.api.runs import start_run
from svc_client.models import Run, StartRunRequest, StartRunRequestInput

# `wait` holds the answer until the run settles or 25 s pass: allow more than httpx's 5 s default.
client = AuthenticatedClient(base_url=os.environ["SVC_BASE_URL"], token=os.environ["SVC_API_KEY"], timeout=httpx.Timeout(30.0))
body = StartRunRequest(input_=StartRunRequestInput.from_dict({"name": "Ada"}), wait=True)

with client:
    # The same Idempotency-Key and body within 24 h returns the same run: retrying is safe.
    run = start_run.sync(os.environ["SVC_WORKFLOW_ID"], client=client, body=body, idempotency_key="greet-ada-1")

if not isinstance(run, Run):  # a Problem: its `type` links to the page explaining the code
    raise SystemExit(f"{run.code.value}: {run.detail} ({run.type_})")
print(run.status.value, json.dumps(run.output))

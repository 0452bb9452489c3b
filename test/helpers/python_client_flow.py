"""Drives the live API through the Python client openapi-python-client generated (test/pythonClient.test.ts).

Starts a run with `wait` and an Idempotency-Key (then replays it), reads it, pages through a
workflow's runs with the cursor, cancels a run waiting for a review, and meets problems typed as
`Problem` with their `code` enum. Every step asserts what the live service answered; the last line
printed is a JSON summary the Jest test checks against the database.

Environment: SVC_BASE_URL, SVC_API_KEY, SVC_GREET_WORKFLOW_ID, SVC_REVIEW_WORKFLOW_ID; the
generated package `svc_client` on PYTHONPATH.
"""

import json
import os

import httpx
from svc_client import AuthenticatedClient
from svc_client.api.runs import cancel_run, get_run, list_runs, start_run
from svc_client.models import Problem, ProblemCode, Run, RunList, RunStatus, StartRunRequest, StartRunRequestInput
from svc_client.types import UNSET

base_url = os.environ["SVC_BASE_URL"]
greet = os.environ["SVC_GREET_WORKFLOW_ID"]
review = os.environ["SVC_REVIEW_WORKFLOW_ID"]
client = AuthenticatedClient(base_url=base_url, token=os.environ["SVC_API_KEY"], timeout=httpx.Timeout(60.0))


def start(workflow_id: str, name: str, *, wait: bool, key=UNSET):
    body = StartRunRequest(input_=StartRunRequestInput.from_dict({"name": name}), wait=wait)
    return start_run.sync_detailed(workflow_id, client=client, body=body, idempotency_key=key)


with client:
    # Start with wait and an Idempotency-Key: a new run, settled, as typed models.
    first = start(greet, "Ada", wait=True, key="python-client-1")
    assert first.status_code == 201, first
    run = first.parsed
    assert isinstance(run, Run), run
    assert run.status == RunStatus.SUCCEEDED, run.status
    assert run.output == {"greeting": "hello Ada"}, run.output
    assert run.input_.to_dict() == {"name": "Ada"}, run.input_
    assert run.idempotency_key == "python-client-1"
    assert run.duration_ms is not None and run.duration_ms >= 0
    assert first.headers["location"] == f"/api/v1/runs/{run.id}"

    # The same key and body again: the same run, replayed.
    again = start(greet, "Ada", wait=True, key="python-client-1")
    assert again.status_code == 200, again
    assert again.headers["idempotent-replayed"] == "true"
    assert isinstance(again.parsed, Run) and again.parsed.id == run.id

    # Read it, with its steps.
    read = get_run.sync(run.id, client=client)
    assert isinstance(read, Run) and read.id == run.id
    assert [(s.key, s.status.value, s.attempts) for s in read.steps] == [("shape", "succeeded", 1)]
    assert read.steps[0].output == {"greeting": "hello Ada"}
    assert read.review is None and read.error is None

    # More runs, then every run of the workflow through pages of two, following the cursor.
    started = [run.id]
    for name in ["Grace", "Edsger", "Barbara"]:
        more = start(greet, name, wait=False)
        assert more.status_code == 201, more
        started.append(more.parsed.id)
    listed, cursor, pages = [], UNSET, 0
    while True:
        page = list_runs.sync(greet, client=client, limit=2, cursor=cursor)
        assert isinstance(page, RunList), page
        assert len(page.data) <= 2
        listed.extend(r.id for r in page.data)
        pages += 1
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert sorted(listed) == sorted(started), (listed, started)
    assert listed == list(reversed(started)), "newest first"
    assert pages == 2

    # A run waiting for a person can be cancelled; a finished one cannot (409 with its status).
    waiting = start(review, "Alan", wait=True)
    assert waiting.status_code == 201 and waiting.parsed.status == RunStatus.WAITING_FOR_REVIEW, waiting
    cancelled = cancel_run.sync(waiting.parsed.id, client=client)
    assert isinstance(cancelled, Run), cancelled
    assert cancelled.status == RunStatus.CANCELLED
    assert cancelled.review is not None and cancelled.review.status.value == "cancelled"
    refused = cancel_run.sync_detailed(run.id, client=client)
    assert refused.status_code == 409
    assert isinstance(refused.parsed, Problem) and refused.parsed.code == ProblemCode.RUN_NOT_CANCELLABLE
    assert refused.parsed.run_status == "succeeded"

    # An unknown run: a typed problem whose `type` is a page explaining the code.
    missing = get_run.sync("run_doesnotexist", client=client)
    assert isinstance(missing, Problem) and missing.code == ProblemCode.RUN_NOT_FOUND, missing
    page = httpx.get(missing.type_)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), page
    assert "run_not_found" in page.text

print(
    json.dumps(
        {
            "run": run.id,
            "replayed": again.parsed.id,
            "listed": listed,
            "pages": pages,
            "cancelled": cancelled.id,
            "problem_type": missing.type_,
        }
    )
)

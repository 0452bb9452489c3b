"""Schemathesis hooks for test/schemathesis.test.ts (loaded with SCHEMATHESIS_HOOKS).

One extra check. The built-in `positive_data_acceptance` is told (in the generated
schemathesis.toml) that three operations may answer 422 to schema-valid data, because the API
contract has 422s that depend on state or on the target of a URL, which no JSON Schema can say:

  startRun              idempotency_key_reused   (API.md 4.1: a key reused with another body)
  createWebhookEndpoint url_not_allowed          (API.md 7: not https, or a refused address)
  updateWebhookEndpoint url_not_allowed

Customer data (a run's input, a trigger's payload) is any JSON object in the document, a plain
schema every client generator reads; that no string in it may contain U+0000 is said in prose
there. So startRun and fireTrigger may also answer validation_failed, but only to a body that
holds U+0000.

This check keeps that allowance exact: a schema-valid request answered 422 must carry one of
those codes for that operation, and every other operation keeps the built-in expectation.
"""
import json

import schemathesis

SEMANTIC_422 = {
    "startRun": {"idempotency_key_reused"},
    "createWebhookEndpoint": {"url_not_allowed"},
    "updateWebhookEndpoint": {"url_not_allowed"},
}

# Operations whose body is customer data: U+0000 in any string of it is refused (validation_failed).
NUL_REFUSED = {"startRun", "fireTrigger"}


def holds_nul(value):
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(holds_nul(v) for v in value)
    if isinstance(value, dict):
        return any(holds_nul(k) or holds_nul(v) for k, v in value.items())
    return False


@schemathesis.check
def valid_data_refused_only_for_documented_reasons(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    operation_id = case.operation.definition.raw.get("operationId")
    try:
        code = json.loads(response.content).get("code")
    except (ValueError, AttributeError):
        code = None
    allowed = SEMANTIC_422.get(operation_id, set())
    if operation_id in NUL_REFUSED and code == "validation_failed" and holds_nul(case.body):
        return None
    if code not in allowed:
        raise AssertionError(
            f"Schema-valid request to {operation_id} answered 422 with code {code!r}; "
            f"only {sorted(allowed) or 'no code'} may refuse schema-valid data there"
        )
    return None

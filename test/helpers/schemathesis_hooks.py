"""Schemathesis hooks for test/schemathesis.test.ts (loaded with SCHEMATHESIS_HOOKS).

One extra check. The built-in `positive_data_acceptance` is told (in the generated
schemathesis.toml) that three operations may answer 422 to schema-valid data, because the API
contract has 422s that depend on state or on the target of a URL, which no JSON Schema can say:

  startRun              idempotency_key_reused   (a key reused with another body)
  createWebhookEndpoint url_not_allowed          (not https, or a refused address)
  updateWebhookEndpoint url_not_allowed

Run input may be any JSON object in the document (a schema every client generator takes), so
what the input field's description adds, no U+0000 in any string and at most 64 levels of
nesting, is checked by the service: startRun, and fireTrigger (whose payload becomes a run's
input), may also answer `validation_failed` for exactly those, and for nothing else.

This check keeps that allowance exact: a schema-valid request answered 422 must carry one of
those codes for that operation, and every other operation keeps the built-in expectation.
"""
import json

import schemathesis

SEMANTIC_422 = {
    "startRun": {"idempotency_key_reused", "validation_failed"},
    "createWebhookEndpoint": {"url_not_allowed"},
    "updateWebhookEndpoint": {"url_not_allowed"},
    "fireTrigger": {"validation_failed"},
}

# Operations whose body becomes a run's input: startRun's `input`, fireTrigger's whole payload.
RUN_INPUT_OPERATIONS = {"startRun", "fireTrigger"}


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
    if code == "validation_failed" and operation_id in RUN_INPUT_OPERATIONS:
        errors = json.loads(response.content).get("errors") or []
        documented = ("strings cannot contain U+0000", "must not nest deeper than 64 levels")
        if errors and all(e.get("message") in documented for e in errors):
            return None
        raise AssertionError(
            f"Schema-valid request to {operation_id} refused as validation_failed for an undocumented reason: {errors!r}"
        )
    if code not in allowed:
        raise AssertionError(
            f"Schema-valid request to {operation_id} answered 422 with code {code!r}; "
            f"only {sorted(allowed) or 'no code'} may refuse schema-valid data there"
        )
    return None

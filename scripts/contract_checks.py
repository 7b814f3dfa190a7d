"""Schemathesis checks of Canteen's own, loaded by scripts/contract-test.py (SCHEMATHESIS_HOOKS)."""
import os
import re

import schemathesis

SECRETS = [secret for secret in os.environ.get("CANTEEN_SECRETS", "").split(",") if secret]
TOKEN_PATTERN = re.compile(rb"cnt_[A-Za-z0-9_-]{16,}")


@schemathesis.check
def no_secret_in_body(ctx, response, case):
    """No issued token appears in any answer, and no token-like string in an error body."""
    body = response.content or b""
    for secret in SECRETS:
        if secret.encode() in body:
            raise AssertionError(f"a token secret appears in the answer to {case.operation.label}")
    if response.status_code >= 400 and TOKEN_PATTERN.search(body):
        raise AssertionError(f"a token-like string appears in an error body of {case.operation.label}")


@schemathesis.check
def error_shape(ctx, response, case):
    """Every 4xx and 5xx with a body is {"error": {"code", "message", "field"}} (405 and 413 included)."""
    if response.status_code < 400 or not response.content:
        return
    try:
        body = response.json()
    except ValueError:
        raise AssertionError(f"{response.status_code} from {case.operation.label} is not JSON")
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("code"), str) or "message" not in error or "field" not in error:
        raise AssertionError(f"{response.status_code} from {case.operation.label} is not an error object: {body!r:.200}")

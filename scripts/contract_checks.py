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


# Refusals of schema-valid data that depend on what the server holds, or on the clock, rather
# than on the request's shape: a schema cannot list the cafés, items, coupon signatures or time
# zones that exist, nor the stored document a write lands in. `positive_data_acceptance` lets
# 412 and 422 through (schemathesis.toml); this check then fails every other refusal of valid data.
STATE_CODES = {
    "unknown_cafe", "unknown_item", "unknown_option", "invalid_selection", "cafe_closed",
    "pickup_window_unavailable", "unknown_coupon", "invalid_coupon_code", "coupon_not_applicable",
    "currency_mismatch", "beacon_outside_region", "unknown_time_zone", "version_mismatch",
    "enrolment_code_invalid", "preference_too_large", "too_many_preferences", "day_part_outside_hours",
    # A webhook host that is (or resolves to) an internal address: the pattern cannot say which are.
    "webhook_address_not_allowed",
}
# Rules between members, or between a member and the URL or the clock, that JSON Schema cannot
# state (each is in the operation's description): operation, field, the codes it may give.
RELATIONAL = [
    ("PUT /v1/cafes/{cafeId}", r"^id$", {"invalid_field"}),  # the café of the URL
    ("PUT /v1/cafes/{cafeId}", r"^names(\..*)?$", {"invalid_field", "missing_translation"}),  # the languages
    ("PUT /v1/cafes/{cafeId}", r"^hours\.[a-z]+\[\d+\]$", {"invalid_field"}),  # opens before it closes, no overlap
    ("PUT /v1/cafes/{cafeId}", r"^beacons\[\d+\]\.minor$", {"duplicate_id"}),
    ("PUT /v1/cafes/{cafeId}", r"^display\.ticketLateMinutes$", {"invalid_field"}),  # after the warning
    ("PUT /v1/cafes/{cafeId}/menu", r"\.(names|descriptions)(\..*)?$", {"invalid_field", "missing_translation"}),
    ("PUT /v1/cafes/{cafeId}/menu", r"\.id$", {"duplicate_id"}),
    ("PUT /v1/cafes/{cafeId}/menu", r"^items\[\d+\]\.(category|dayParts\[\d+\])$", {"unknown_reference"}),
    ("PUT /v1/cafes/{cafeId}/menu", r"^dayParts\[\d+\]$", {"invalid_field"}),  # ends after it starts
    ("PUT /v1/cafes/{cafeId}/menu", r"\.modifierGroups\[\d+\]\.min$", {"invalid_field", "min_exceeds_max"}),
    ("POST /v1/coupons", r"^validUntil$", {"invalid_field"}),  # after validFrom
    ("PATCH /v1/cafes/{cafeId}/menu/items/{itemId}", r"^soldOutUntil$", {"invalid_field"}),  # in the future
    # "nearest" or an existing café; the key is in the URL, so the schema cannot tell the value's rule.
    ("PUT /v1/users/{userId}/preferences/{key}", r"^(defaultLocation|locale)$", {"invalid_preference"}),
    ("PUT /v1/preferences/defaults/{key}", r"^(defaultLocation|locale)$", {"invalid_preference"}),
    ("PATCH /v1/users/{userId}/preferences", r"^defaultLocation$", {"invalid_preference"}),
    # A host name of at most 253 characters, and a numeric host only as a.b.c.d: a pattern over the
    # whole URL cannot bound the host's length apart from the path's, nor tell `1.2` from a name.
    ("POST /v1/webhooks", r"^url$", {"invalid_webhook_url"}),
    # A report's `to` is not before its `from` and at most 366 days after it.
    ("GET /v1/cafes/{cafeId}/reports/sales", r"^to$", {"invalid_query"}),
    ("GET /v1/cafes/{cafeId}/reports/kitchen", r"^to$", {"invalid_query"}),
]


def _problems(body):
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return []
    listed = error.get("problems")
    if isinstance(listed, list) and listed:
        return [(p.get("code"), p.get("field") or "") for p in listed if isinstance(p, dict)]
    return [(error.get("code"), error.get("field") or "")]


@schemathesis.check
def valid_data_refused_only_for_state(ctx, response, case):
    """Schema-valid data is never refused for its shape: no 400, and a 422 only for a rule that
    depends on the server's data or the clock (STATE_CODES) or between members (RELATIONAL)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code not in (400, 422):
        return None
    try:
        problems = _problems(response.json())
    except ValueError:
        problems = []
    label = case.operation.label
    unexplained = [
        (code, field) for code, field in problems
        if code not in STATE_CODES
        and not any(label == operation and re.search(pattern, field) and code in codes
                    for operation, pattern, codes in RELATIONAL)
    ]
    if response.status_code == 400 or unexplained or not problems:
        raise AssertionError(f"schema-valid data refused by {label} with {response.status_code}: "
                             f"{unexplained or problems} {response.text[:300]!r}")
    return None

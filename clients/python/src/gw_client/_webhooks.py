"""Standard Webhooks verification: HMAC-SHA256 over "{id}.{timestamp}.{body}", 5-minute tolerance
(docs/webhooks.md "Verifying a delivery")."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any, Mapping, Optional, Union

from ._errors import WebhookVerificationError

TOLERANCE_SECONDS = 5 * 60


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise WebhookVerificationError(f"missing header {name}")


def verify(body: Union[str, bytes], headers: Mapping[str, str], secret: str, *, now: Optional[float] = None) -> Any:
    """Answers the parsed payload, or raises WebhookVerificationError."""
    msg_id = _header(headers, "webhook-id")
    stamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    try:
        ts = int(stamp)
    except ValueError:
        raise WebhookVerificationError("invalid webhook-timestamp") from None
    current = time.time() if now is None else now
    if ts < current - TOLERANCE_SECONDS:
        raise WebhookVerificationError("message timestamp too old")
    if ts > current + TOLERANCE_SECONDS:
        raise WebhookVerificationError("message timestamp too new")
    try:
        key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret, validate=True)
    except ValueError:
        raise WebhookVerificationError("the secret is not whsec_ + base64") from None
    raw = body.encode("utf-8") if isinstance(body, str) else body
    mac = hmac.new(key, f"{msg_id}.{ts}.".encode("utf-8") + raw, hashlib.sha256).digest()
    expected = base64.b64encode(mac).decode("ascii")
    for candidate in signatures.split(" "):
        version, _, sig = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(sig, expected):
            try:
                return json.loads(raw.decode("utf-8"))
            except ValueError:
                return raw.decode("utf-8", "replace")
    raise WebhookVerificationError("no matching signature")

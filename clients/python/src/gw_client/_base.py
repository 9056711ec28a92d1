"""What the sync and async clients share: configuration, request building, retry policy."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Mapping, Optional

from ._types import RequestOptions
from ._version import USER_AGENT

DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"
DEFAULT_TIMEOUT = 600.0
DEFAULT_MAX_RETRIES = 2
# gw's transient answers (docs/api.md "Errors"): 409 is an idempotent request still running.
RETRY_STATUSES = frozenset({409, 429, 502, 503, 504})
INITIAL_DELAY = 0.5
MAX_DELAY = 8.0
MAX_RETRY_AFTER = 60.0

_OPTION_HEADERS = {
    "session": "X-Gw-Session",
    "trace_id": "X-Gw-Trace-Id",
    "parent_span": "X-Gw-Parent-Span",
    "cache": "X-Gw-Cache",
    "cache_scope": "X-Gw-Cache-Scope",
}


class Prepared:
    """One logical call: the same url, headers (Idempotency-Key included) and body on every try."""

    __slots__ = ("method", "url", "headers", "body", "timeout", "max_retries", "idempotent")

    def __init__(self, method: str, url: str, headers: Dict[str, str], body: Optional[bytes], timeout: float, max_retries: int, idempotent: bool) -> None:
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.max_retries = max_retries
        self.idempotent = idempotent


class Config:
    def __init__(self, api_key: Optional[str], base_url: Optional[str], admin_token: Optional[str], max_retries: int, timeout: float) -> None:
        self.api_key = api_key if api_key is not None else os.environ.get("GW_API_KEY")
        self.admin_token = admin_token if admin_token is not None else os.environ.get("GW_ADMIN_TOKEN")
        self.base_url = (base_url or os.environ.get("GW_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout

    def prepare(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        options: Optional[RequestOptions] = None,
        idempotency: bool = False,
        stream: bool = False,
        admin: bool = False,
    ) -> Prepared:
        """`idempotency`: the endpoint takes an Idempotency-Key, made once here and reused by every retry."""
        opts: RequestOptions = options or {}
        token = self.admin_token if admin else self.api_key
        if not token:
            raise ValueError("admin_token (or GW_ADMIN_TOKEN) is required" if admin else "api_key (or GW_API_KEY) is required")
        headers = {"Authorization": f"Bearer {token}", "User-Agent": USER_AGENT, "Accept": "text/event-stream" if stream else "application/json"}
        for name, header in _OPTION_HEADERS.items():
            value = opts.get(name)
            if value is not None:
                headers[header] = str(value)
        if idempotency:
            key = opts.get("idempotency_key")
            if key is None:
                import uuid

                key = f"gw-py-{uuid.uuid4()}"
            headers["Idempotency-Key"] = key
        headers.update(opts.get("headers") or {})
        data = None
        if body is not None:
            data = json.dumps({k: v for k, v in body.items() if v is not None}).encode("utf-8")
            headers["Content-Type"] = "application/json"
        url = self.base_url + path
        if query:
            from urllib.parse import urlencode

            q = {k: ("true" if v is True else "false" if v is False else v) for k, v in query.items() if v is not None}
            if q:
                url += "?" + urlencode(q)
        timeout = float(opts.get("timeout", self.timeout))
        retries = int(opts.get("max_retries", self.max_retries))
        # A non-idempotent POST (admin creates, credits) may have run when the connection broke.
        safe = method in ("GET", "DELETE") or idempotency or not admin
        return Prepared(method, url, headers, data, timeout, retries, safe)


def should_retry(req: Prepared, status: Optional[int], attempt: int) -> bool:
    """status None: the connection failed. Other 4xx (a decided answer) never retry."""
    if attempt >= req.max_retries:
        return False
    if status is None:
        return req.idempotent
    return status in RETRY_STATUSES and (req.idempotent or status == 429)


def retry_delay(attempt: int, headers: Optional[Mapping[str, str]]) -> float:
    """Retry-After when gw sent a sane one, else exponential backoff with up to 25% jitter."""
    if headers:
        after = _retry_after(headers.get("retry-after"))
        if after is not None and 0 <= after <= MAX_RETRY_AFTER:
            return after
    import random

    return min(INITIAL_DELAY * float(1 << min(attempt, 16)), MAX_DELAY) * (1 - 0.25 * random.random())


def _retry_after(value: Optional[str]) -> Optional[float]:
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return float(when.timestamp() - time.time())


def path_part(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")

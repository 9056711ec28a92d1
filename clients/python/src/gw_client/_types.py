"""Per-call options and the objects methods return (plain dicts with the response's headers)."""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Literal, Mapping, Optional, TypedDict


class RequestOptions(TypedDict, total=False):
    """gw's request headers (docs/api.md "Request headers") and per-call transport settings."""

    idempotency_key: str
    session: str
    trace_id: str
    parent_span: str
    cache: Literal["off"]
    cache_scope: str
    timeout: float
    max_retries: int
    headers: Mapping[str, str]


class ApiObject(Dict[str, Any]):
    """A JSON object answered by gw; `headers` (lower-cased) and `status` of its HTTP response."""

    def __init__(self, data: Mapping[str, Any], headers: Mapping[str, str], status: int) -> None:
        super().__init__(data)
        self.headers: Dict[str, str] = dict(headers)
        self.status = status

    @property
    def request_id(self) -> Optional[str]:
        return self.headers.get("x-gw-request-id")

    @property
    def replayed(self) -> bool:
        """True when gw replayed a stored result for this Idempotency-Key (docs/idempotency.md)."""
        return self.headers.get("idempotent-replayed") == "true"


class Page:
    """One page of the request log: `data`, `has_more`, `last_id` (the cursor for `after`)."""

    def __init__(self, obj: ApiObject) -> None:
        data = obj.get("data")
        self.data: List[Dict[str, Any]] = list(data) if isinstance(data, list) else []
        self.has_more = bool(obj.get("has_more"))
        last = obj.get("last_id")
        self.last_id: Optional[str] = last if isinstance(last, str) else None
        self.raw = obj

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"Page(len={len(self.data)}, has_more={self.has_more}, last_id={self.last_id!r})"

"""Typed errors: one class per gw error code (docs/api.md "Errors"), ValidationError, ConnectionError."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Type


class GwError(Exception):
    """An error answered by gw (or, for ConnectionError, no answer at all)."""

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: Optional[str] = None,
        type: Optional[str] = None,
        category: Optional[str] = None,
        param: Optional[str] = None,
        request_id: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.type = type
        self.category = category
        self.param = param
        self.request_id = request_id
        self.headers: Dict[str, str] = dict(headers or {})
        self.body = body

    def __str__(self) -> str:
        where = " ".join(str(p) for p in (self.status, self.code) if p is not None)
        return f"{where}: {self.message}" if where else self.message


class InvalidRequestError(GwError): pass
class BlockedByPolicyError(GwError): pass
class InvalidApiKeyError(GwError): pass
class BudgetExceededError(GwError): pass
class InsufficientCreditsError(GwError): pass
class PlanLimitError(GwError): pass
class PermissionDeniedError(GwError): pass
class ModelNotFoundError(GwError): pass
class NotFoundError(GwError): pass
class ConflictError(GwError): pass
class IdempotencyMismatchError(GwError): pass
class RateLimitedError(GwError): pass
class UpstreamError(GwError): pass
class NoModelAvailableError(GwError): pass
class ProviderUnavailableError(GwError): pass
class TimeoutError(GwError): pass  # noqa: A001 - gw's 504 `timeout`; the builtin stays builtins.TimeoutError


class ValidationError(GwError):
    """The 422 `{message, errors}` body of /cache/invalidate and /feedback."""

    def __init__(self, message: str, errors: Dict[str, List[str]], **kw: Any) -> None:
        super().__init__(message, **kw)
        self.errors = errors


class ConnectionError(GwError):  # noqa: A001 - the network failed; gw did not answer
    pass


class WebhookVerificationError(GwError):
    """webhooks.verify refused a delivery (bad signature, stale timestamp, missing header)."""


ERROR_CLASSES: Dict[str, Type[GwError]] = {
    "invalid_request": InvalidRequestError,
    "blocked_by_policy": BlockedByPolicyError,
    "invalid_api_key": InvalidApiKeyError,
    "budget_exceeded": BudgetExceededError,
    "insufficient_credits": InsufficientCreditsError,
    "plan_limit": PlanLimitError,
    "permission_denied": PermissionDeniedError,
    "model_not_found": ModelNotFoundError,
    "not_found": NotFoundError,
    "conflict": ConflictError,
    "idempotency_mismatch": IdempotencyMismatchError,
    "rate_limited": RateLimitedError,
    "upstream_error": UpstreamError,
    "no_model_available": NoModelAvailableError,
    "provider_unavailable": ProviderUnavailableError,
    "timeout": TimeoutError,
}


def error_from_object(err: Mapping[str, Any], status: Optional[int], headers: Mapping[str, str], body: Any = None) -> GwError:
    """gw's error object (the envelope's `error`, or an in-stream error) as its typed class."""
    code = err.get("code")
    cls = ERROR_CLASSES.get(code, GwError) if isinstance(code, str) else GwError
    request_id = err.get("request_id") or headers.get("x-gw-request-id")
    return cls(
        str(err.get("message") or "gw error"),
        status=status,
        code=code if isinstance(code, str) else None,
        type=err.get("type"),
        category=err.get("category"),
        param=err.get("param"),
        request_id=request_id,
        headers=headers,
        body=body if body is not None else dict(err),
    )


def error_from_response(status: int, raw: bytes, headers: Mapping[str, str]) -> GwError:
    """An HTTP error answer as its typed error; a body that is not gw's keeps the status."""
    try:
        body: Any = json.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        body = raw.decode("utf-8", "replace")
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return error_from_object(body["error"], status, headers, body)
    if status == 422 and isinstance(body, dict) and isinstance(body.get("errors"), dict):
        return ValidationError(
            str(body.get("message") or "validation failed"),
            body["errors"],
            status=status,
            category="VALIDATION_FAILED",
            request_id=headers.get("x-gw-request-id"),
            headers=headers,
            body=body,
        )
    text = body if isinstance(body, str) and body else f"HTTP {status}"
    return GwError(text, status=status, request_id=headers.get("x-gw-request-id"), headers=headers, body=body)

"""gw_client: gw's Python client (sync Gw, asyncio AsyncGw). Standard library only; httpx is used
when installed. Heavy modules load on first use so `import gw_client` stays fast."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._errors import (
    BlockedByPolicyError,
    BudgetExceededError,
    ConflictError,
    ConnectionError,
    GwError,
    IdempotencyMismatchError,
    InsufficientCreditsError,
    InvalidApiKeyError,
    InvalidRequestError,
    ModelNotFoundError,
    NoModelAvailableError,
    NotFoundError,
    PermissionDeniedError,
    PlanLimitError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError,
    UpstreamError,
    ValidationError,
    WebhookVerificationError,
)
from ._version import __version__

if TYPE_CHECKING:
    from ._client import AsyncGw, Gw
    from ._streaming import AsyncStream, Stream
    from ._types import ApiObject, Page, RequestOptions
    from ._webhooks import verify as verify_webhook

_LAZY = {
    "Gw": "._client",
    "AsyncGw": "._client",
    "Stream": "._streaming",
    "AsyncStream": "._streaming",
    "ApiObject": "._types",
    "Page": "._types",
    "RequestOptions": "._types",
    "verify_webhook": "._webhooks",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gw_client' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), "verify" if name == "verify_webhook" else name)
    globals()[name] = value
    return value


__all__ = [
    "__version__", "Gw", "AsyncGw", "Stream", "AsyncStream", "ApiObject", "Page", "RequestOptions", "verify_webhook",
    "GwError", "ValidationError", "ConnectionError", "WebhookVerificationError", "InvalidRequestError", "BlockedByPolicyError",
    "InvalidApiKeyError", "BudgetExceededError", "InsufficientCreditsError", "PlanLimitError", "PermissionDeniedError",
    "ModelNotFoundError", "NotFoundError", "ConflictError", "IdempotencyMismatchError", "RateLimitedError", "UpstreamError",
    "NoModelAvailableError", "ProviderUnavailableError", "TimeoutError",
]

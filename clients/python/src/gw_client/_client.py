"""Gw (sync) and AsyncGw (asyncio): the retry loop around one transport, and the namespaces."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional, Union

from ._base import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, Config, Prepared, retry_delay, should_retry
from ._errors import ConnectionError, GwError, error_from_response
from ._types import ApiObject

if TYPE_CHECKING:
    from ._streaming import AsyncStream, Stream
    from ._transport import AsyncResponse, AsyncTransport, Response, Transport

TransportKind = str  # "auto" (httpx when installed, else the standard library), "stdlib" or "httpx"


def _parse(raw: bytes, status: int, headers: Any) -> ApiObject:
    try:
        data = json.loads(raw.decode("utf-8")) if raw else {}
    except ValueError as e:
        raise GwError(f"gw answered {status} with a body that is not JSON", status=status, headers=headers) from e
    return ApiObject(data if isinstance(data, dict) else {"data": data}, headers, status)


class Gw:
    """gw's client: `Gw(api_key=..., base_url=..., max_retries=2, timeout=600)`.

    api_key defaults to GW_API_KEY, base_url to GW_BASE_URL or http://127.0.0.1:8080/v1,
    admin_token (for `admin`) to GW_ADMIN_TOKEN."""

    def __init__(
        self,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        admin_token: Optional[str] = None,
        transport: Union[TransportKind, "Transport"] = "auto",
    ) -> None:
        from . import _resources as r

        self._config = Config(api_key, base_url, admin_token, max_retries, timeout)
        self._transport_choice = transport
        self._transport: Optional["Transport"] = None
        self.chat = r.Chat(self)
        self.responses = r.Responses(self)
        self.embeddings = r.Embeddings(self)
        self.models = r.Models(self)
        self.requests = r.Requests(self)
        self.metrics = r.Metrics(self)
        self.cache = r.Cache(self)
        self.webhooks = r.Webhooks()
        self.admin = r.Admin(self)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    def _get_transport(self) -> "Transport":
        if self._transport is None:
            from ._transport import make_transport

            choice = self._transport_choice
            self._transport = make_transport(choice) if isinstance(choice, str) else choice
        return self._transport

    def _send(self, req: Prepared) -> "Response":
        """Sends with retries; returns a 2xx response (body unread) or raises the typed error."""
        transport = self._get_transport()
        attempt = 0
        while True:
            try:
                resp = transport.send(req.method, req.url, req.headers, req.body, req.timeout)
            except ConnectionError:
                if not should_retry(req, None, attempt):
                    raise
                self._sleep(retry_delay(attempt, None))
                attempt += 1
                continue
            if resp.status < 400:
                return resp
            err = error_from_response(resp.status, resp.read(), resp.headers)
            if not should_retry(req, resp.status, attempt):
                raise err
            self._sleep(retry_delay(attempt, resp.headers))
            attempt += 1

    def _sleep(self, seconds: float) -> None:
        import time

        time.sleep(seconds)

    def _json(self, req: Prepared) -> ApiObject:
        attempt = 0
        while True:
            resp = self._send(req)
            try:
                return _parse(resp.read(), resp.status, resp.headers)
            except ConnectionError:  # the body broke off: the call is retried like a failed connection
                if not should_retry(req, None, attempt):
                    raise
                self._sleep(retry_delay(attempt, None))
                attempt += 1

    def _stream(self, req: Prepared, kind: str) -> "Stream":
        from ._streaming import Stream

        return Stream(self._send(req), kind)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def __enter__(self) -> "Gw":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncGw:
    """The asyncio client; the same surface as Gw with every call awaited."""

    def __init__(
        self,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        admin_token: Optional[str] = None,
        transport: Union[TransportKind, "AsyncTransport"] = "auto",
    ) -> None:
        from . import _async_resources as r
        from ._resources import Webhooks

        self._config = Config(api_key, base_url, admin_token, max_retries, timeout)
        self._transport_choice = transport
        self._transport: Optional["AsyncTransport"] = None
        self.chat = r.Chat(self)
        self.responses = r.Responses(self)
        self.embeddings = r.Embeddings(self)
        self.models = r.Models(self)
        self.requests = r.Requests(self)
        self.metrics = r.Metrics(self)
        self.cache = r.Cache(self)
        self.webhooks = Webhooks()
        self.admin = r.Admin(self)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    def _get_transport(self) -> "AsyncTransport":
        if self._transport is None:
            from ._transport import make_async_transport

            choice = self._transport_choice
            self._transport = make_async_transport(choice) if isinstance(choice, str) else choice
        return self._transport

    async def _send(self, req: Prepared) -> "AsyncResponse":
        import asyncio

        transport = self._get_transport()
        attempt = 0
        while True:
            try:
                resp = await transport.send(req.method, req.url, req.headers, req.body, req.timeout)
            except ConnectionError:
                if not should_retry(req, None, attempt):
                    raise
                await asyncio.sleep(retry_delay(attempt, None))
                attempt += 1
                continue
            if resp.status < 400:
                return resp
            err = error_from_response(resp.status, await resp.read(), resp.headers)
            if not should_retry(req, resp.status, attempt):
                raise err
            await asyncio.sleep(retry_delay(attempt, resp.headers))
            attempt += 1

    async def _json(self, req: Prepared) -> ApiObject:
        import asyncio

        attempt = 0
        while True:
            resp = await self._send(req)
            try:
                return _parse(await resp.read(), resp.status, resp.headers)
            except ConnectionError:
                if not should_retry(req, None, attempt):
                    raise
                await asyncio.sleep(retry_delay(attempt, None))
                attempt += 1

    async def _stream(self, req: Prepared, kind: str) -> "AsyncStream":
        from ._streaming import AsyncStream

        return AsyncStream(await self._send(req), kind)

    async def close(self) -> None:
        if self._transport is not None:
            await self._transport.close()

    async def __aenter__(self) -> "AsyncGw":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

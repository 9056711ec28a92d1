"""The optional httpx transport (sync and async), imported only when a client first sends."""
from __future__ import annotations

from typing import AsyncIterator, Dict, Iterator, Mapping, Optional

import httpx

from ._transport import _network


class HttpxResponse:
    def __init__(self, resp: httpx.Response) -> None:
        self._resp = resp
        self.status = resp.status_code
        self.headers: Dict[str, str] = {k.lower(): v for k, v in resp.headers.items()}

    def read(self) -> bytes:
        try:
            return self._resp.read()
        except httpx.HTTPError as e:
            raise _network(e) from e
        finally:
            self._resp.close()

    def iter_lines(self) -> Iterator[str]:
        try:
            yield from self._resp.iter_lines()
        except httpx.HTTPError as e:
            raise _network(e) from e
        finally:
            self._resp.close()

    def close(self) -> None:
        self._resp.close()


class HttpxTransport:
    def __init__(self) -> None:
        self._client = httpx.Client()

    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> HttpxResponse:
        try:
            req = self._client.build_request(method, url, headers=dict(headers), content=body, timeout=timeout)
            return HttpxResponse(self._client.send(req, stream=True))
        except httpx.HTTPError as e:
            raise _network(e) from e

    def close(self) -> None:
        self._client.close()


class AsyncHttpxResponse:
    def __init__(self, resp: httpx.Response) -> None:
        self._resp = resp
        self.status = resp.status_code
        self.headers: Dict[str, str] = {k.lower(): v for k, v in resp.headers.items()}

    async def read(self) -> bytes:
        try:
            return await self._resp.aread()
        except httpx.HTTPError as e:
            raise _network(e) from e
        finally:
            await self._resp.aclose()

    async def iter_lines(self) -> AsyncIterator[str]:
        try:
            async for line in self._resp.aiter_lines():
                yield line
        except httpx.HTTPError as e:
            raise _network(e) from e
        finally:
            await self._resp.aclose()

    async def close(self) -> None:
        await self._resp.aclose()


class AsyncHttpxTransport:
    def __init__(self) -> None:
        self._client = httpx.AsyncClient()

    async def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> AsyncHttpxResponse:
        try:
            req = self._client.build_request(method, url, headers=dict(headers), content=body, timeout=timeout)
            return AsyncHttpxResponse(await self._client.send(req, stream=True))
        except httpx.HTTPError as e:
            raise _network(e) from e

    async def close(self) -> None:
        await self._client.aclose()

"""HTTP transports: the standard library's http.client (async: run in a thread) and, when
installed, httpx. Network failures leave as gw_client.ConnectionError."""
from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable, Dict, Iterator, Mapping, Optional, Protocol, TypeVar

from ._errors import ConnectionError

T = TypeVar("T")


class Response(Protocol):
    status: int
    headers: Dict[str, str]

    def read(self) -> bytes: ...
    def iter_lines(self) -> Iterator[str]: ...
    def close(self) -> None: ...


class Transport(Protocol):
    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> Response: ...
    def close(self) -> None: ...


class AsyncResponse(Protocol):
    status: int
    headers: Dict[str, str]

    async def read(self) -> bytes: ...
    def iter_lines(self) -> AsyncIterator[str]: ...
    async def close(self) -> None: ...


class AsyncTransport(Protocol):
    async def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> AsyncResponse: ...
    async def close(self) -> None: ...


def _network(err: BaseException) -> ConnectionError:
    return ConnectionError(f"connection failed: {err.__class__.__name__}: {err}" if str(err) else f"connection failed: {err.__class__.__name__}")


class StdlibResponse:
    def __init__(self, conn: Any, resp: Any) -> None:
        self._conn = conn
        self._resp = resp
        self.status: int = resp.status
        self.headers: Dict[str, str] = {k.lower(): v for k, v in resp.getheaders()}

    def read(self) -> bytes:
        try:
            data: bytes = self._resp.read()
            return data
        except Exception as e:  # an OSError, IncompleteRead or a timeout mid-body
            raise _network(e) from e
        finally:
            self.close()

    def iter_lines(self) -> Iterator[str]:
        try:
            while True:
                try:
                    line: bytes = self._resp.readline()
                except Exception as e:
                    raise _network(e) from e
                if not line:
                    return
                yield line.decode("utf-8").rstrip("\r\n")
        finally:
            self.close()

    def close(self) -> None:
        self._conn.close()


class StdlibTransport:
    """One http.client connection per request: no shared state, safe from any thread."""

    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> StdlibResponse:
        import http.client
        from urllib.parse import urlsplit

        u = urlsplit(url)
        conn_cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(u.hostname or "127.0.0.1", u.port, timeout=timeout)
        try:
            conn.request(method, (u.path or "/") + (f"?{u.query}" if u.query else ""), body=body, headers=dict(headers))
            return StdlibResponse(conn, conn.getresponse())
        except Exception as e:
            conn.close()
            raise _network(e) from e

    def close(self) -> None:
        pass


async def _in_thread(fn: Callable[[], T]) -> T:
    return await asyncio.get_running_loop().run_in_executor(None, fn)


class ThreadedResponse:
    """A stdlib response read from a worker thread so the event loop never blocks."""

    def __init__(self, inner: StdlibResponse) -> None:
        self._inner = inner
        self.status = inner.status
        self.headers = inner.headers

    async def read(self) -> bytes:
        return await _in_thread(self._inner.read)

    async def iter_lines(self) -> AsyncIterator[str]:
        lines = self._inner.iter_lines()
        done = object()
        while True:
            line = await _in_thread(lambda: next(lines, done))
            if line is done or not isinstance(line, str):
                return
            yield line

    async def close(self) -> None:
        self._inner.close()


class ThreadedTransport:
    def __init__(self) -> None:
        self._sync = StdlibTransport()

    async def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> ThreadedResponse:
        return ThreadedResponse(await _in_thread(lambda: self._sync.send(method, url, headers, body, timeout)))

    async def close(self) -> None:
        pass


def httpx_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("httpx") is not None


def make_transport(kind: str) -> Transport:
    if kind == "httpx" or (kind == "auto" and httpx_available()):
        from ._httpx import HttpxTransport

        return HttpxTransport()
    return StdlibTransport()


def make_async_transport(kind: str) -> AsyncTransport:
    if kind == "httpx" or (kind == "auto" and httpx_available()):
        from ._httpx import AsyncHttpxTransport

        return AsyncHttpxTransport()
    return ThreadedTransport()

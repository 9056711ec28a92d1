"""Server-sent event streams of chat completions and responses. gw's summary (`stream.gw`) is
kept, not yielded; an in-stream error raises its typed class (docs/api.md "Errors")."""
from __future__ import annotations

import json
from typing import Any, AsyncGenerator, Dict, Generator, Iterator, List, Optional, Tuple

from ._errors import GwError, error_from_object
from ._transport import AsyncResponse, Response


class _SSE:
    """Collects `event:` / `data:` lines into (event, data) pairs at each blank line."""

    def __init__(self) -> None:
        self.event: Optional[str] = None
        self.data: List[str] = []

    def feed(self, line: str) -> Optional[Tuple[Optional[str], str]]:
        if line == "":
            if not self.data:
                self.event = None
                return None
            out = (self.event, "\n".join(self.data))
            self.event, self.data = None, []
            return out
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            self.event = value
        elif field == "data":
            self.data.append(value)
        return None

    def flush(self) -> Optional[Tuple[Optional[str], str]]:
        return self.feed("")


class _Base:
    def __init__(self, kind: str, headers: Dict[str, str]) -> None:
        self._kind = kind
        self.headers = headers
        self.gw: Optional[Dict[str, Any]] = None
        """gw's summary (docs/api.md "The gw object") once the stream has ended."""
        self._done = False

    @property
    def request_id(self) -> Optional[str]:
        return self.headers.get("x-gw-request-id")

    def _handle(self, event: Optional[str], data: str) -> Optional[Dict[str, Any]]:
        """The item to yield, None to skip; raises the typed error of an in-stream failure."""
        if data == "[DONE]":
            self._done = True
            return None
        try:
            obj = json.loads(data)
        except ValueError as e:
            raise GwError(f"malformed stream data: {data[:80]!r}", headers=self.headers) from e
        if not isinstance(obj, dict):
            return None
        if self._kind == "chat":
            if isinstance(obj.get("error"), dict):
                raise error_from_object(obj["error"], None, self.headers, obj)
            if obj.get("object") == "gw.summary":
                gw = obj.get("gw")
                self.gw = gw if isinstance(gw, dict) else None
                return None
            return obj
        kind = obj.get("type", event)
        if kind == "error":
            inner = obj.get("error")
            raise error_from_object(inner if isinstance(inner, dict) else obj, None, self.headers, obj)
        if kind in ("response.completed", "response.incomplete") and isinstance(obj.get("response"), dict):
            gw = obj["response"].get("gw")
            self.gw = gw if isinstance(gw, dict) else None
        return obj


class Stream(_Base):
    """Iterate for chunks (chat) or typed events (responses); `stream.gw` after the end."""

    def __init__(self, resp: Response, kind: str) -> None:
        super().__init__(kind, resp.headers)
        self._resp = resp
        self._iter = self._events()

    def _events(self) -> Generator[Dict[str, Any], None, None]:
        sse = _SSE()
        try:
            for line in self._resp.iter_lines():
                got = sse.feed(line)
                if got is not None:
                    item = self._handle(*got)
                    if item is not None:
                        yield item
                    if self._done:
                        return
            last = sse.flush()
            if last is not None:
                item = self._handle(*last)
                if item is not None:
                    yield item
        finally:
            self._resp.close()

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        return self._iter

    def __next__(self) -> Dict[str, Any]:
        return next(self._iter)

    def close(self) -> None:
        self._iter.close()

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncStream(_Base):
    """`async for` over chunks or events; `stream.gw` after the end."""

    def __init__(self, resp: AsyncResponse, kind: str) -> None:
        super().__init__(kind, resp.headers)
        self._resp = resp
        self._iter = self._events()

    async def _events(self) -> AsyncGenerator[Dict[str, Any], None]:
        sse = _SSE()
        try:
            async for line in self._resp.iter_lines():
                got = sse.feed(line)
                if got is not None:
                    item = self._handle(*got)
                    if item is not None:
                        yield item
                    if self._done:
                        return
            last = sse.flush()
            if last is not None:
                item = self._handle(*last)
                if item is not None:
                    yield item
        finally:
            await self._resp.close()

    def __aiter__(self) -> AsyncGenerator[Dict[str, Any], None]:
        return self._iter

    async def __anext__(self) -> Dict[str, Any]:
        return await self._iter.__anext__()

    async def close(self) -> None:
        await self._iter.aclose()

    async def __aenter__(self) -> "AsyncStream":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

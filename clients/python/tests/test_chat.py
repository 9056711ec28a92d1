"""Chat completions, streamed and not, sync and async, on both transports; per-call headers."""
from __future__ import annotations

import asyncio

import pytest

import gw_client
from gw_client import AsyncGw, Gw

from conftest import USER, GwServer, unique


def test_chat_create_sync(gw: GwServer, transport: str) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url, transport=transport)
    out = client.chat.completions.create(model="gw-auto", messages=USER, request_options={"cache": "off"})
    assert out["object"] == "chat.completion"
    assert out["choices"][0]["message"]["content"]
    assert out["gw"]["test"] is True and out["gw"]["provider"] == "sandbox"
    assert out.request_id == out["gw"]["request_id"] and out.status == 200 and not out.replayed
    assert out.headers["x-gw-api-version"]


def test_chat_stream_sync(gw: GwServer, transport: str) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url, transport=transport)
    stream = client.chat.completions.create(model="gw-auto", messages=USER, stream=True, request_options={"cache": "off"})
    chunks = list(stream)
    assert chunks and all(c["object"] == "chat.completion.chunk" for c in chunks)
    text = "".join(ch["delta"].get("content") or "" for c in chunks for ch in c["choices"])
    assert text
    assert stream.gw is not None and stream.gw["request_id"] == stream.request_id


def test_chat_async(gw: GwServer, transport: str) -> None:
    async def run() -> None:
        async with AsyncGw(api_key=gw.test_key, base_url=gw.base_url, transport=transport) as client:
            out = await client.chat.completions.create(model="gw-auto", messages=USER, request_options={"cache": "off"})
            assert out["gw"]["request_id"] == out.request_id
            stream = await client.chat.completions.create(model="gw-auto", messages=USER, stream=True)
            chunks = [c async for c in stream]
            assert any(ch["delta"].get("content") for c in chunks for ch in c["choices"])
            assert stream.gw is not None and stream.gw["request_id"].startswith("req_")

    asyncio.run(run())


def test_in_stream_error_raises_its_class(gw: GwServer, transport: str) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url, transport=transport, max_retries=0)
    stream = client.chat.completions.create(model="gw-test:stream_error", messages=USER, stream=True)
    seen = []
    with pytest.raises(gw_client.GwError) as info:
        for chunk in stream:
            seen.append(chunk)
    assert seen, "deltas come before the error"
    assert type(info.value) is not gw_client.GwError and info.value.code in gw_client._errors.ERROR_CLASSES
    assert info.value.request_id == stream.request_id

    async def run() -> None:
        aclient = AsyncGw(api_key=gw.test_key, base_url=gw.base_url, transport=transport, max_retries=0)
        astream = await aclient.chat.completions.create(model="gw-test:stream_error", messages=USER, stream=True)
        with pytest.raises(type(info.value)):
            async for _ in astream:
                pass

    asyncio.run(run())


def test_request_options_become_gw_headers(gw: GwServer) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url)
    trace = unique("trc-py")
    opts: gw_client.RequestOptions = {"trace_id": trace, "parent_span": "span-py-1", "session": unique("sess"), "cache": "off"}
    first = client.chat.completions.create(model="gw-auto", messages=USER, request_options=opts)
    second = client.chat.completions.create(model="gw-auto", messages=USER, request_options={**opts, "idempotency_key": unique("k")})
    assert first.headers["x-gw-cache"] == "miss" and second.headers["x-gw-cache"] == "miss"
    detail = client.requests.get(first.request_id or "")
    assert detail["trace_id"] == trace
    root = detail["trace"]["spans"][0]
    assert root["parent_span_id"] == "span-py-1"
    assert {e["request_id"] for e in client.requests.iterate(trace_id=trace)} == {first.request_id, second.request_id}

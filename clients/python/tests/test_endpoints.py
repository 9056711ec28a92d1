"""Responses, embeddings, models, the request log (pages, cursor), feedback, metrics, cache
invalidation: sync and async."""
from __future__ import annotations

import asyncio

import pytest

import gw_client
from gw_client import AsyncGw, Gw

from conftest import USER, GwServer, unique


def test_responses_sync(gw: GwServer, transport: str) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url, transport=transport)
    out = client.responses.create(model="gw-auto", input="Say hello", request_options={"cache": "off"})
    assert out["object"] == "response" and out["output_text"] and out["gw"]["request_id"] == out.request_id
    stream = client.responses.create(model="gw-auto", input="Say hello", stream=True, request_options={"cache": "off"})
    events = list(stream)
    types = [e["type"] for e in events]
    assert types[0] == "response.created" and "response.output_text.delta" in types and types[-1] == "response.completed"
    assert stream.gw is not None and stream.gw["request_id"] == stream.request_id


def test_responses_async_and_stream_error(gw: GwServer, transport: str) -> None:
    async def run() -> None:
        async with AsyncGw(api_key=gw.test_key, base_url=gw.base_url, transport=transport, max_retries=0) as client:
            out = await client.responses.create(model="gw-auto", input="hi")
            assert out["status"] == "completed"
            stream = await client.responses.create(model="gw-auto", input="hi", stream=True, request_options={"cache": "off"})
            assert [e["type"] async for e in stream][-1] == "response.completed" and stream.gw
            bad = await client.responses.create(model="gw-test:stream_error", input="hi", stream=True)
            with pytest.raises(gw_client.GwError) as info:
                async for _ in bad:
                    pass
            assert info.value.code and info.value.request_id

    asyncio.run(run())


def test_embeddings_and_models(gw: GwServer, transport: str) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url, transport=transport)
    emb = client.embeddings.create(input=["one", "two"])
    assert [d["index"] for d in emb["data"]] == [0, 1] and len(emb["data"][0]["embedding"]) == 16
    assert emb["gw"]["test"] is True
    models = client.models.list()
    ids = [m["id"] for m in models["data"]]
    assert "gw-auto" in ids and "openai/gpt-4o-mini" in ids
    assert client.models.retrieve("openai/gpt-4o-mini")["id"] == "openai/gpt-4o-mini"

    async def run() -> None:
        aclient = AsyncGw(api_key=gw.test_key, base_url=gw.base_url, transport=transport)
        assert len((await aclient.embeddings.create(input="x"))["data"]) == 1
        assert (await aclient.models.list())["object"] == "list"
        await aclient.close()

    asyncio.run(run())


def test_request_log_pages_get_and_feedback(gw: GwServer) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url)
    trace = unique("trc-log")
    made = [client.chat.completions.create(model="gw-auto", messages=USER, request_options={"trace_id": trace, "cache": "off"}).request_id
            for _ in range(5)]
    page = client.requests.list(trace_id=trace, limit=2)
    assert len(page.data) == 2 and page.has_more and page.last_id
    second = client.requests.list(trace_id=trace, limit=2, after=page.last_id)
    assert not {e["request_id"] for e in page} & {e["request_id"] for e in second}
    every = [e["request_id"] for e in client.requests.iterate(trace_id=trace, limit=2)]
    assert every == list(reversed(made))  # newest first, over three pages
    detail = client.requests.get(made[0] or "")
    assert detail["object"] == "request" and detail["trace"]["spans"]
    fb = client.requests.feedback(made[0] or "", rating=4)
    assert (fb["object"], fb["request_id"], fb["rating"]) == ("feedback", made[0], 4)
    with pytest.raises(gw_client.ValidationError) as info:
        client.requests.feedback(made[0] or "", rating=9)
    assert "rating" in info.value.errors
    with pytest.raises(gw_client.NotFoundError):
        client.requests.feedback("req_doesnotexist0000000000", rating=3)


def test_request_log_async(gw: GwServer, transport: str) -> None:
    async def run() -> None:
        client = AsyncGw(api_key=gw.test_key, base_url=gw.base_url, transport=transport)
        trace = unique("trc-alog")
        for _ in range(3):
            await client.chat.completions.create(model="gw-auto", messages=USER, request_options={"trace_id": trace, "cache": "off"})
        page = await client.requests.list(trace_id=trace, limit=2)
        assert page.has_more and len(page) == 2
        ids = [e["request_id"] async for e in client.requests.iterate(trace_id=trace, limit=2)]
        assert len(ids) == 3
        assert (await client.requests.get(ids[0]))["request_id"] == ids[0]
        assert (await client.requests.feedback(ids[0], rating=5))["rating"] == 5
        metrics = await client.metrics.get(period="1h")
        assert metrics["object"] == "metrics" and metrics["requests"] >= 3
        assert (await client.cache.invalidate(all=True))["object"] == "cache.invalidation"
        await client.close()

    asyncio.run(run())


def test_metrics_and_cache_invalidation(gw: GwServer) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url)
    tag = unique("tag")
    body = {"model": "gw-auto", "messages": [{"role": "user", "content": unique("cache me")}], "cache": {"tags": [tag]}}
    assert client.chat.completions.create(**body).headers["x-gw-cache"] == "miss"
    assert client.chat.completions.create(**body).headers["x-gw-cache"] == "exact"
    assert client.cache.invalidate(tags=[tag])["deleted"] == 1
    assert client.chat.completions.create(**body).headers["x-gw-cache"] == "miss"
    metrics = client.metrics.get(period="24h")
    assert metrics["period"] == "24h" and metrics["requests"] >= 3 and "availability" in metrics
    with pytest.raises(gw_client.InvalidRequestError):
        client.metrics.get(period="2y")
    with pytest.raises(gw_client.ValidationError):
        client.cache.invalidate(all=False)

"""Safe retries: a call whose first answer is lost (the connection drops while gw keeps working)
reaches the upstream once; its retries, under the same Idempotency-Key, get 409 while the first
try runs and then gw's replay."""
from __future__ import annotations

import asyncio
from typing import Iterator

import pytest

from gw_client import AsyncGw, Gw

from conftest import GwServer, unique
from lossy_proxy import LossyProxy


@pytest.fixture
def proxy(gw: GwServer) -> Iterator[LossyProxy]:
    p = LossyProxy(gw.base_url)
    yield p
    p.stop()


def _body() -> dict:
    return {"model": "openai/gpt-4o-mini", "messages": [{"role": "user", "content": unique("retry")}]}


def test_retry_after_a_lost_answer_reaches_the_upstream_once(gw: GwServer, proxy: LossyProxy, transport: str) -> None:
    # The upstream is slow, so the retries find the first try still running (409) before the replay.
    gw.script_upstream(delayMs=1500, times=1)
    proxy.lose = 1
    before = gw.upstream_calls()
    client = Gw(api_key=gw.live_key, base_url=proxy.url, max_retries=8, transport=transport)
    out = client.chat.completions.create(**_body())
    assert out.replayed and out.headers.get("idempotent-replayed") == "true"
    assert out["choices"][0]["message"]["content"].startswith("Echo:")
    assert gw.upstream_calls() == before + 1 and proxy.lost == 1
    # lost, then at least one 409 while the first try ran, then the replay: one key throughout
    assert len(proxy.keys) >= 3 and len(set(proxy.keys)) == 1 and proxy.keys[0]


def test_async_retry_after_a_lost_answer(gw: GwServer, proxy: LossyProxy, transport: str) -> None:
    async def run() -> None:
        gw.script_upstream(delayMs=1500, times=1)
        proxy.lose = 1
        before = gw.upstream_calls()
        async with AsyncGw(api_key=gw.live_key, base_url=proxy.url, max_retries=8, transport=transport) as client:
            out = await client.chat.completions.create(**_body())
        assert out.replayed
        assert gw.upstream_calls() == before + 1
        assert len(proxy.keys) >= 3 and len(set(proxy.keys)) == 1

    asyncio.run(run())


def test_a_call_without_trouble_is_not_a_replay(gw: GwServer) -> None:
    before = gw.upstream_calls()
    out = Gw(api_key=gw.live_key, base_url=gw.base_url).chat.completions.create(**_body())
    assert not out.replayed and gw.upstream_calls() == before + 1

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


def test_retry_policy() -> None:
    from gw_client._base import Prepared, retry_delay, should_retry

    post = Prepared("POST", "u", {}, b"{}", 1.0, 2, True)
    admin_create = Prepared("POST", "u", {}, b"{}", 1.0, 2, False)
    assert [should_retry(post, s, 0) for s in (None, 409, 429, 502, 503, 504)] == [True] * 6
    assert not any(should_retry(post, s, 0) for s in (400, 401, 402, 403, 404, 422, 500))
    assert not should_retry(post, 429, 2)  # max_retries reached
    assert [should_retry(admin_create, s, 0) for s in (None, 409, 429, 503)] == [False, False, True, False]
    assert retry_delay(0, {"retry-after": "2"}) == 2.0
    assert retry_delay(0, {"retry-after": "3600"}) <= 0.5  # an absurd Retry-After falls back to backoff
    assert 0.375 <= retry_delay(0, None) <= 0.5 and 0.75 <= retry_delay(1, None) <= 1.0 and retry_delay(9, None) <= 8.0
    from email.utils import formatdate
    import time

    assert 2.0 < retry_delay(0, {"retry-after": formatdate(time.time() + 5, usegmt=True)}) <= 5.0

"""Each error class reached through gw: `gw-test:<name>` models, keys, ids, idempotency, the network."""
from __future__ import annotations

import asyncio
import socket
import threading
from typing import List, Type

import pytest

import gw_client
from gw_client import AsyncGw, Gw

from conftest import USER, GwServer, unique

ON_DEMAND = [
    ("invalid_request", gw_client.InvalidRequestError, 400),
    ("blocked_by_policy", gw_client.BlockedByPolicyError, 400),
    ("budget_exceeded", gw_client.BudgetExceededError, 402),
    ("insufficient_credits", gw_client.InsufficientCreditsError, 402),
    ("plan_limit", gw_client.PlanLimitError, 402),
    ("rate_limited", gw_client.RateLimitedError, 429),
    ("upstream_error", gw_client.UpstreamError, 502),
    ("no_model_available", gw_client.NoModelAvailableError, 503),
    ("provider_unavailable", gw_client.ProviderUnavailableError, 503),
    ("timeout", gw_client.TimeoutError, 504),
]
RETRIED = {429, 502, 503, 504}


@pytest.mark.parametrize("name,cls,status", ON_DEMAND)
def test_gw_test_model_raises_its_class(gw: GwServer, name: str, cls: Type[gw_client.GwError], status: int) -> None:
    trace = unique("trc-err")
    # A decided 4xx is sent once even with retries allowed; a transient one is retried max_retries times.
    retries = 1
    client = Gw(api_key=gw.test_key, base_url=gw.base_url, max_retries=retries)
    with pytest.raises(cls) as info:
        client.chat.completions.create(model=f"gw-test:{name}", messages=USER, request_options={"trace_id": trace})
    err = info.value
    assert (err.status, err.code) == (status, name)
    assert err.type and err.category and err.request_id and err.request_id.startswith("req_") and err.message
    sent = [e for e in client.requests.iterate(trace_id=trace)]
    assert len(sent) == (1 + retries if status in RETRIED else 1)


def test_gw_test_errors_async(gw: GwServer, transport: str) -> None:
    async def run() -> None:
        client = AsyncGw(api_key=gw.test_key, base_url=gw.base_url, max_retries=0, transport=transport)
        for name, cls, status in ON_DEMAND:
            with pytest.raises(cls) as info:
                await client.chat.completions.create(model=f"gw-test:{name}", messages=USER)
            assert info.value.status == status
        with pytest.raises(gw_client.ModelNotFoundError):
            await client.embeddings.create(model="gw-test:no_such_error", input="x")

    asyncio.run(run())


def test_other_codes(gw: GwServer) -> None:
    client = Gw(api_key=gw.test_key, base_url=gw.base_url)
    with pytest.raises(gw_client.ModelNotFoundError) as mnf:
        client.chat.completions.create(model="gw-test:no_such_error", messages=USER)
    assert mnf.value.status == 404
    with pytest.raises(gw_client.NotFoundError):
        client.requests.get("req_doesnotexist0000000000")
    with pytest.raises(gw_client.InvalidApiKeyError) as bad:
        Gw(api_key="gw_test_not-a-real-key", base_url=gw.base_url).models.list()
    assert bad.value.status == 401 and bad.value.category == "AUTHENTICATION"
    with pytest.raises(gw_client.PermissionDeniedError):
        Gw(api_key=gw.narrow_key, base_url=gw.base_url).requests.list()
    with pytest.raises(gw_client.ValidationError) as invalid:
        client.cache.invalidate(tags=["", "ok"])
    assert invalid.value.status == 422 and "tags[0]" in invalid.value.errors
    key = unique("idem")
    client.chat.completions.create(model="gw-auto", messages=USER, request_options={"idempotency_key": key})
    with pytest.raises(gw_client.IdempotencyMismatchError):
        client.chat.completions.create(model="gw-auto", messages=[{"role": "user", "content": "other"}], request_options={"idempotency_key": key})


def test_conflict_while_the_first_try_runs(gw: GwServer) -> None:
    client = Gw(api_key=gw.live_key, base_url=gw.base_url, max_retries=0)
    key = unique("conflict")
    body = {"model": "openai/gpt-4o-mini", "messages": [{"role": "user", "content": unique("slow")}]}
    gw.script_upstream(delayMs=2500, times=1)
    before = gw.upstream_calls()
    results: List[object] = []
    first = threading.Thread(target=lambda: results.append(client.chat.completions.create(**body, request_options={"idempotency_key": key})))
    first.start()
    while gw.upstream_calls() == before:  # the first try has reached the upstream and holds the key
        threading.Event().wait(0.02)
    with pytest.raises(gw_client.ConflictError) as info:
        client.chat.completions.create(**body, request_options={"idempotency_key": key})
    assert info.value.status == 409
    first.join()
    assert results and gw.upstream_calls() == before + 1


def test_connection_error(transport: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = Gw(api_key="gw_test_x", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, transport=transport)
    with pytest.raises(gw_client.ConnectionError) as info:
        client.models.list()
    assert info.value.status is None and isinstance(info.value, gw_client.GwError)

"""webhooks.verify against signatures made by the npm `standardwebhooks` package; the admin
namespace (projects, keys, credits) with the admin token."""
from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import time

import pytest

import gw_client
from gw_client import AsyncGw, Gw

from conftest import HERE, REPO, USER, GwServer, bun, unique


def sign(secret: str, msg_id: str, ts: int, payload: str) -> str:
    out = subprocess.run([bun(), "run", str(HERE / "sign-webhook.ts"), secret, msg_id, str(ts)], input=payload, cwd=REPO,
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


def test_webhook_verify_against_standardwebhooks() -> None:
    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    payload = json.dumps({"type": "test.ping", "version": 1, "data": {"ok": True}})
    msg_id, now = "evt_py_1", int(time.time())
    headers = {"Webhook-Id": msg_id, "Webhook-Timestamp": str(now), "Webhook-Signature": sign(secret, msg_id, now, payload)}
    hooks = Gw(api_key="unused").webhooks
    assert hooks.verify(payload, headers, secret) == json.loads(payload)
    assert hooks.verify(payload.encode(), {k.lower(): v for k, v in headers.items()}, secret)["type"] == "test.ping"
    # a rotated secret: gw signs with both, space-separated
    other = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    both = {**headers, "Webhook-Signature": f"{sign(other, msg_id, now, payload)} {headers['Webhook-Signature']}"}
    assert gw_client.verify_webhook(payload, both, secret)["version"] == 1
    with pytest.raises(gw_client.WebhookVerificationError):
        hooks.verify(payload.replace("true", "false"), headers, secret)
    with pytest.raises(gw_client.WebhookVerificationError):
        hooks.verify(payload, headers, other)
    old = now - 6 * 60
    stale = {"webhook-id": msg_id, "webhook-timestamp": str(old), "webhook-signature": sign(secret, msg_id, old, payload)}
    with pytest.raises(gw_client.WebhookVerificationError, match="too old"):
        hooks.verify(payload, stale, secret)
    with pytest.raises(gw_client.WebhookVerificationError, match="missing"):
        hooks.verify(payload, {"webhook-id": msg_id}, secret)


def test_admin_projects_keys_credits(gw: GwServer) -> None:
    admin = Gw(admin_token=gw.admin_token, base_url=gw.base_url)
    project = admin.admin.projects.create(name=unique("py-admin"), billing={"mode": "prepaid"})
    assert project["object"] == "project" and project.status == 201
    pid = project["id"]
    assert admin.admin.projects.get(pid)["name"] == project["name"]
    assert admin.admin.projects.update(pid, policy={"cache": False})["policy"]["cache"] is False
    assert pid in [p["id"] for p in admin.admin.projects.list()["data"]]
    key = admin.admin.keys.create(pid, mode="test", scopes=["chat", "requests"])
    assert key["key"].startswith("gw_test_")
    assert key["id"] in [k["id"] for k in admin.admin.keys.list(pid)["data"]]
    assert admin.admin.credits.add(pid, amount=5)["balance"] == 5
    user = Gw(api_key=key["key"], base_url=gw.base_url)
    assert user.chat.completions.create(model="gw-auto", messages=USER)["gw"]["test"] is True
    assert admin.admin.keys.revoke(key["id"])["revoked"] is True
    with pytest.raises(gw_client.InvalidApiKeyError):
        user.chat.completions.create(model="gw-auto", messages=USER)
    with pytest.raises(gw_client.InvalidApiKeyError):  # a project key never reaches the admin API
        Gw(admin_token=gw.test_key, base_url=gw.base_url).admin.projects.list()


def test_admin_async(gw: GwServer, transport: str) -> None:
    async def run() -> None:
        async with AsyncGw(admin_token=gw.admin_token, base_url=gw.base_url, transport=transport) as client:
            project = await client.admin.projects.create(name=unique("py-async"))
            key = await client.admin.keys.create(project["id"])
            assert key["key"].startswith("gw_live_")
            assert len((await client.admin.keys.list(project["id"]))["data"]) == 1
            assert (await client.admin.credits.add(project["id"], amount=1))["object"] == "credits"
            assert (await client.admin.keys.revoke(key["id"]))["revoked"] is True
            assert (await client.admin.projects.get(project["id"]))["id"] == project["id"]

    asyncio.run(run())

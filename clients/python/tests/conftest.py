"""A real gw for the suite: the scripted OpenAI upstream (tests/upstream.ts) and `gw serve` on free
loopback ports with a temporary data directory, a project and its keys; stopped at the end."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, List

import pytest

REPO = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
ADMIN_TOKEN = "py-admin-token-0123456789abcdef-0123456789"


def bun() -> str:
    found = shutil.which("bun") or str(Path.home() / ".bun" / "bin" / "bun")
    if not Path(found).exists():
        pytest.exit("bun is required to run gw for the Python client's tests")
    return found


@dataclass
class GwServer:
    base_url: str
    test_key: str
    live_key: str
    narrow_key: str  # a test key without the `requests` scope
    admin_token: str
    control_url: str
    project_id: str

    def upstream_calls(self) -> int:
        with urllib.request.urlopen(f"{self.control_url}/count") as r:
            return int(json.loads(r.read())["calls"])

    def script_upstream(self, **reply: Any) -> None:
        req = urllib.request.Request(f"{self.control_url}/script", data=json.dumps(reply).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()


def _cli(env: dict, *args: str) -> Any:
    out = subprocess.run([bun(), "run", "src/main.ts", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"gw {' '.join(args)} failed: {out.stderr}")
    return json.loads(out.stdout)


def _wait(what: str, check: Any, timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


@pytest.fixture(scope="session")
def gw() -> Iterator[GwServer]:
    tmp = Path(tempfile.mkdtemp(prefix="gw-python-client-"))
    data = tmp / "data"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), "GW_DATA_DIR": str(data)}
    procs: List[subprocess.Popen[str]] = []
    try:
        project = _cli(env, "projects", "create", "--name", "python-client")
        pid = project["id"]
        all_scopes = "chat,embeddings,models,cache,requests"
        test_key = _cli(env, "keys", "create", "--project", pid, "--scopes", all_scopes, "--test")["key"]
        live_key = _cli(env, "keys", "create", "--project", pid, "--scopes", all_scopes)["key"]
        narrow_key = _cli(env, "keys", "create", "--project", pid, "--test")["key"]

        up = subprocess.Popen([bun(), "run", str(HERE / "upstream.ts")], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
        procs.append(up)
        assert up.stdout is not None
        m = re.match(r"UPSTREAM (\S+) CONTROL (\S+)", up.stdout.readline())
        if not m:
            raise RuntimeError("the scripted upstream did not print its address")
        upstream_url, control_url = m.group(1), m.group(2)

        log = open(tmp / "gw.log", "w")
        serve_env = {**env, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": upstream_url, "GW_ADMIN_TOKEN": ADMIN_TOKEN,
                     "GW_SHUTDOWN_TIMEOUT_S": "2"}
        server = subprocess.Popen([bun(), "run", "src/main.ts", "serve", "--host", "127.0.0.1", "--port", "0"], cwd=REPO,
                                  env=serve_env, stdout=log, stderr=subprocess.STDOUT, text=True)
        procs.append(server)

        def port() -> int:
            if server.poll() is not None:
                raise RuntimeError(f"gw exited: {(tmp / 'gw.log').read_text()}")
            found = re.search(r'(?:"url":"|Dashboard: )http://127\.0\.0\.1:(\d+)', (tmp / "gw.log").read_text())
            return int(found.group(1)) if found else 0

        origin = f"http://127.0.0.1:{_wait('gw to print its address', port)}"

        def ready() -> bool:
            try:
                with urllib.request.urlopen(f"{origin}/readyz", timeout=5) as r:
                    return bool(r.status == 200)
            except OSError:
                return False

        _wait("gw /readyz", ready)
        yield GwServer(f"{origin}/v1", test_key, live_key, narrow_key, ADMIN_TOKEN, control_url, pid)
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


TRANSPORTS = ["stdlib", "httpx"]


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """Each test that takes it runs once on the standard library and once on httpx."""
    if request.param == "httpx":
        pytest.importorskip("httpx")
    return str(request.param)


def unique(prefix: str) -> str:
    import uuid

    return f"{prefix}-{uuid.uuid4().hex[:12]}"


USER = [{"role": "user", "content": "Say hello"}]

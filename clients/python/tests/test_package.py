"""The README's example run unchanged against the real gw; `import gw_client` time; the version."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import gw_client

from conftest import GwServer

README = Path(__file__).resolve().parents[1] / "README.md"


def test_version_and_user_agent() -> None:
    from gw_client._version import USER_AGENT

    assert gw_client.__version__ == "1.1.0" and USER_AGENT == "gw-python/1.1.0"


def test_readme_example_runs_unchanged(gw: GwServer, tmp_path: Path) -> None:
    example = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[0]
    script = tmp_path / "readme_example.py"
    script.write_text(example)
    env = {**os.environ, "GW_API_KEY": gw.test_key, "GW_BASE_URL": gw.base_url}
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "not found: 404 model_not_found req_" in out.stdout
    assert "streamed by" in out.stdout


def import_ms() -> float:
    """Cumulative microseconds of `import gw_client` from -X importtime, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import gw_client"], capture_output=True, text=True, check=True)
    line = [ln for ln in out.stderr.splitlines() if ln.rstrip().endswith("| gw_client")][-1]
    return int(line.split("|")[1]) / 1000


def test_import_is_fast() -> None:
    best = min(import_ms() for _ in range(3))
    print(f"\nimport gw_client: {best:.1f} ms (best of 3, -X importtime cumulative)")
    assert best < 150
    # nothing heavy at import: the transports, asyncio and http.client load on first use
    out = subprocess.run([sys.executable, "-c", "import sys, gw_client; print(sorted(m for m in ('asyncio', 'http.client', 'httpx', 'ssl', 'gw_client._client') if m in sys.modules))"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

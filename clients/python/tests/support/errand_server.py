"""The errand server the live tests talk to.

ERRAND_URL and ERRAND_TOKEN both set: that server, with the fixture site bound to ERRAND_TEST_SITE
(host:port, which the server must admit with --allow-private HOST:PORT) and, when ERRAND_DIGEST_KEY_FILE
names its key file, digests checked against the key. Otherwise: a fresh `errand serve` of this checkout
in its own temporary ERRAND_HOME (owner approval off, so the write tests need no owner), with an API
token from `errand token create`, its fixture site on 127.0.0.1, and the home's own key.

The CLI runs as ERRAND_TEST_NODE (default node) with --import ERRAND_TEST_TSX (default tsx, resolved
from this checkout's node_modules) on src/interfaces/cli/main.ts, or dist/src/interfaces/cli/main.js
when there is no tsx. With neither, or no Chromium, the live tests skip and say why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from errand_client import read_key_file

from ..paths import REPO
from .fixture_site import FixtureSite

OWNER_PASSWORD = "a long owner password for the python tests"


@dataclass
class ErrandUnderTest:
    url: str
    token: str
    digest_key: bytes | None
    site: FixtureSite
    started_here: bool
    _process: subprocess.Popen[str] | None = None
    _home: str | None = None

    def stop(self) -> None:
        self.site.close()
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)


class Unavailable(Exception):
    """Why the live tests cannot run here."""


def cli_command() -> list[str]:
    node = os.environ.get("ERRAND_TEST_NODE") or shutil.which("node")
    if not node:
        raise Unavailable("no node to run errand with (set ERRAND_TEST_NODE)")
    tsx = os.environ.get("ERRAND_TEST_TSX")
    if tsx is None and (REPO / "node_modules" / "tsx").exists():
        tsx = "tsx"
    if tsx is not None:
        return [node, "--import", tsx, str(REPO / "src" / "interfaces" / "cli" / "main.ts")]
    built = REPO / "dist" / "src" / "interfaces" / "cli" / "main.js"
    if built.exists():
        return [node, str(built)]
    raise Unavailable("neither tsx (npm ci) nor a build (npm run build) of errand is in this checkout")


def _clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRAND_") and k != "NODE_OPTIONS"}
    env.update(extra)
    return env


def start() -> ErrandUnderTest:
    url, token = os.environ.get("ERRAND_URL"), os.environ.get("ERRAND_TOKEN")
    if url and token:
        return _external(url.rstrip("/"), token)
    chromium = os.environ.get("CHROME_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise Unavailable("no Chromium to run tasks with (install chromium or set CHROME_PATH)")
    command = cli_command()
    site = FixtureSite()
    home = tempfile.mkdtemp(prefix="errand-python-")
    env = _clean_env({"ERRAND_HOME": home, "ERRAND_OWNER_PASSWORD": OWNER_PASSWORD, "ERRAND_OWNER_APPROVAL": "none", "ERRAND_RETRY_DELAY_MS": "500"})
    try:
        created = subprocess.run([*command, "token", "create", "--name", "python-tests"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        if created.returncode != 0:
            raise RuntimeError(f"errand token create exited {created.returncode}: {created.stderr}")
        token = created.stdout.strip()
        process = subprocess.Popen([*command, "serve", "--port", "0", "--allow-private", f"{site.host}:{site.port}"], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        origin = _wait_until_listening(process)
    except BaseException:
        site.close()
        shutil.rmtree(home, ignore_errors=True)
        raise
    return ErrandUnderTest(url=origin, token=token, digest_key=read_key_file(str(Path(home) / "keys" / "master.key")), site=site, started_here=True, _process=process, _home=home)


def _wait_until_listening(process: subprocess.Popen[str]) -> str:
    """Reads serve's banner until it names its address and gives its "Next:" advice; stderr is drained aside."""
    assert process.stdout is not None and process.stderr is not None
    errors: list[str] = []
    threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True).start()  # type: ignore[arg-type]
    banner = ""
    deadline = time.monotonic() + 90
    origin = None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line == "":
            raise RuntimeError(f"errand serve exited {process.wait()}: {''.join(errors)[-2000:]}")
        banner += line
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", banner)
        if match:
            origin = match.group(1)
        if origin and "Next:" in banner:
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # type: ignore[union-attr]
            return origin
    process.kill()
    raise RuntimeError(f"errand serve did not start in 90 s: {banner[-2000:]}")


def _external(url: str, token: str) -> ErrandUnderTest:
    site_address = os.environ.get("ERRAND_TEST_SITE")
    if not site_address or ":" not in site_address:
        raise Unavailable("ERRAND_URL is set but ERRAND_TEST_SITE (host:port for the fixture site, admitted by the server's --allow-private) is not")
    host, _, port = site_address.rpartition(":")
    key_file = os.environ.get("ERRAND_DIGEST_KEY_FILE")
    return ErrandUnderTest(url=url, token=token, digest_key=read_key_file(key_file) if key_file else None, site=FixtureSite(host, int(port)), started_here=False)

"""A tiny site on loopback for the live tests: pages a task reads, a form it writes to, a slow page,
and a count of every request, by method and path (query included)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SLOW_SECONDS = 4


def _page(title: str, body: str) -> bytes:
    return f'<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head><body>{body}</body></html>'.encode("utf-8")


class FixtureSite:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hits: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # quiet: the test output is parsed
                pass

            def _answer(self, body: bytes, status: int = 200) -> None:
                self.send_response(status)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                site._count("GET", self.path)
                path = self.path.split("?")[0]
                if path == "/page":
                    self._answer(_page("Python fixture", '<h1 id="title">Python fixture page</h1><p id="price">42.17 EUR</p>'))
                elif path == "/form":
                    self._answer(_page("Form", '<form method="post" action="/save"><input id="note" name="note"><button id="save" type="submit">Save</button></form>'))
                elif path == "/slow":
                    time.sleep(SLOW_SECONDS)
                    self._answer(_page("Slow", '<h1 id="slow">Slow done</h1>'))
                else:
                    self._answer(_page("Not found", "<h1>not found</h1>"), 404)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                site._count("POST", self.path)
                self._answer(_page("Saved", '<h1 id="saved">Saved</h1>'))

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.host, self.port = self._server.server_address[0], self._server.server_address[1]
        self.origin = f"http://{self.host}:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _count(self, method: str, path: str) -> None:
        with self._lock:
            self.hits[(method, path)] += 1

    def count(self, method: str, path: str) -> int:
        with self._lock:
            return self.hits[(method, path)]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

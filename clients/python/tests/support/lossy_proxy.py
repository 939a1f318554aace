"""A loopback proxy in front of errand that loses answers: each request reaches errand whole and
errand answers it, but the client never gets the answer. "drop" closes the client's connection once
errand has answered (a connection dropped mid-call); "hold" keeps it open and silent until the client
gives up (a socket timeout); "drop_first" drops only the first answer and relays every later one.
"relay" loses nothing (with tls, an HTTPS front for errand). `requests` lists each request line
that reached errand."""

from __future__ import annotations

import socket
import ssl
import threading


class LossyProxy:
    def __init__(self, upstream_host: str, upstream_port: int, mode: str, tls: ssl.SSLContext | None = None) -> None:
        if mode not in ("drop", "hold", "drop_first", "relay"):
            raise ValueError("mode is drop, hold, drop_first or relay")
        self._tls = tls
        self.mode = mode
        self._upstream = (upstream_host, upstream_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.origin = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        #: Set once errand has answered a request the client will never see.
        self.answered = threading.Event()
        self.answers: list[bytes] = []
        self.requests: list[str] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        if self._tls is not None:
            try:
                client = self._tls.wrap_socket(client, server_side=True)
            except (OSError, ssl.SSLError):
                client.close()
                return
        with client:
            request = _read_request(client, f"{self._upstream[0]}:{self._upstream[1]}")
            if request is None:
                return
            with self._lock:
                self.requests.append(request.split(b"\r\n", 1)[0].decode("latin-1"))
                first = len(self.requests) == 1
            with socket.create_connection(self._upstream, timeout=120) as upstream:
                upstream.sendall(request)
                answer = b""
                while chunk := upstream.recv(65536):
                    answer += chunk
            self.answers.append(answer)
            self.answered.set()
            if self.mode == "relay" or (self.mode == "drop_first" and not first):
                client.sendall(answer)
                return
            if self.mode == "hold":
                # Silent until the client hangs up.
                try:
                    while client.recv(65536):
                        pass
                except OSError:
                    pass
            # drop: the connection closes here with nothing sent back.

    def close(self) -> None:
        self._closed = True
        self._listener.close()


def _read_request(client: socket.socket, upstream_host: str) -> bytes | None:
    """The whole request (head and Content-Length body), with errand's own Host and Connection: close."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith((b"connection:", b"host:"))]
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = client.recv(65536)
        if not chunk:
            return None
        body += chunk
    return b"\r\n".join(lines + [b"Host: " + upstream_host.encode("ascii"), b"Connection: close"]) + b"\r\n\r\n" + body

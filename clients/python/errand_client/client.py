"""The synchronous client of errand's REST API (/v1), standard library only."""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import ssl
import threading
import time
import uuid
from typing import Any
from urllib.parse import quote, urlsplit

from .errors import (
    ArtifactMismatch,
    DigestMismatch,
    ErrandError,
    IdentityMismatch,
    InvalidTask,
    OperationNotFound,
    OutcomeUnknown,
    RateLimited,
    Unauthorized,
)
from .request_digest import MIN_KEY_BYTES, request_digest
from .types import Artifact, Cancelled, Collected, Handle, Inspection, Receipt, Submitted

__all__ = ["ErrandClient", "MAX_WAIT_MS", "MAX_POLL_INTERVAL_MS"]

#: Longest collect wait the client accepts (ms), as errand's own collect.
MAX_WAIT_MS = 3_600_000
#: Longest pause between two looks while collecting (ms).
MAX_POLL_INTERVAL_MS = 60_000
#: Longest wait errand is asked to hold one collect request open (s); a longer wait is several requests.
LONG_POLL_SECONDS = 20

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_EXCEPTIONS = {"identity_mismatch": IdentityMismatch, "operation_not_found": OperationNotFound}


class ErrandClient:
    """A client of one errand server, for one API token (`errand token create --name N`).

    digest_key: the key errand digests requests with (the hex file ERRAND_HOME/keys/master.key, see
    read_key_file). With it, every answer's request digest is checked against the digest computed
    here for the task; without it, the first digest errand answers for an id is pinned and later
    answers must repeat it. Either way a mismatch raises DigestMismatch.

    timeout: seconds a call may take on the network (a collect adds the wait errand was asked for).
    Thread-safe: every call opens its own connection.
    """

    def __init__(self, base_url: str, token: str, *, digest_key: bytes | None = None, timeout: float = 30.0, ssl_context: ssl.SSLContext | None = None) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http(s) origin such as https://errand.example.com, not {base_url[:80]!r}")
        if digest_key is not None and len(digest_key) < MIN_KEY_BYTES:
            raise ValueError(f"digest_key must be at least {MIN_KEY_BYTES} bytes")
        if not token or any(c.isspace() for c in token):
            raise ValueError("token must be an API token from `errand token create` (no spaces)")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._token = token
        self._key = digest_key
        self._timeout = timeout
        self._ssl = ssl_context
        self._expected: dict[str, str] = {}
        self._lock = threading.Lock()

    # The five operations.

    def submit(self, task: dict[str, Any]) -> Submitted:
        """Queues the task under its caller-owned operationId. The same id and task again is the same
        operation (created=False), never a second run; the same id with another task raises
        IdentityMismatch. A lost answer raises OutcomeUnknown: inspect the same id next."""
        operation_id = _operation_id(task.get("operationId") if isinstance(task, dict) else None)
        if self._key is not None:
            # Computed before anything is sent: a task the client cannot digest is refused here.
            self.expect(operation_id, request_digest(self._key, task))
        body = json.dumps(task, ensure_ascii=False, allow_nan=False).encode("utf-8")
        status, headers, data = self._call("POST", "/v1/operations", body, operation_id=operation_id)
        result = Submitted.from_json(_json(status, data, headers))
        self._check(operation_id, result.handle, None, result)
        return result

    def run(self, task: dict[str, Any], *, wait_ms: int = 60_000, poll_interval_ms: int = 1_000) -> Collected:
        """One submit, then one collect: the recovery loop for a single call. When the submit's
        answer is lost (OutcomeUnknown), it inspects the same id: found, it goes on to collect; not
        found (the submit never landed), it submits the same task under the same id once more.
        It never makes a new id. Any other lost answer is raised: call run again with the same task."""
        operation_id = _operation_id(task.get("operationId") if isinstance(task, dict) else None)
        _bounded_int("wait_ms", wait_ms, MAX_WAIT_MS)
        _bounded_int("poll_interval_ms", poll_interval_ms, MAX_POLL_INTERVAL_MS)
        try:
            self.submit(task)
        except OutcomeUnknown:
            try:
                self.inspect(operation_id)
            except OperationNotFound:
                self.submit(task)
        return self.collect(operation_id, wait_ms=wait_ms, poll_interval_ms=poll_interval_ms)

    def inspect(self, operation_id: str, *, expect_digest: str | None = None) -> Inspection:
        """The operation's durable state, read from errand's journal; runs nothing, opens no browser."""
        operation_id = _operation_id(operation_id)
        if expect_digest is not None:
            self.expect(operation_id, expect_digest)
        status, headers, data = self._call("GET", f"/v1/operations/{quote(operation_id, safe='')}", None, operation_id=operation_id)
        result = Inspection.from_json(_json(status, data, headers))
        self._check(operation_id, result.handle, None, result)
        return result

    def collect(self, operation_id: str, *, wait_ms: int = 0, poll_interval_ms: int = 1_000, expect_digest: str | None = None) -> Collected:
        """The status, and the receipt once terminal. Waits up to wait_ms (0-3,600,000) while the
        operation is pending, looking again after poll_interval_ms (0-60,000) each time errand's own
        wait ends; returns at once on any other status (awaiting_approval included: the owner must act)."""
        operation_id = _operation_id(operation_id)
        _bounded_int("wait_ms", wait_ms, MAX_WAIT_MS)
        _bounded_int("poll_interval_ms", poll_interval_ms, MAX_POLL_INTERVAL_MS)
        if expect_digest is not None:
            self.expect(operation_id, expect_digest)
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            remaining = deadline - time.monotonic()
            result = self.collect_once(operation_id, wait_seconds=min(LONG_POLL_SECONDS, max(0, int(remaining))))
            remaining = deadline - time.monotonic()
            if result.status != "pending" or remaining <= 0:
                return result
            time.sleep(min(poll_interval_ms / 1000, remaining))

    def collect_once(self, operation_id: str, *, wait_seconds: int = 0) -> Collected:
        """One POST .../collect: errand holds it open up to wait_seconds for the receipt."""
        operation_id = _operation_id(operation_id)
        body = json.dumps({"waitSeconds": wait_seconds}).encode("utf-8")
        status, headers, data = self._call("POST", f"/v1/operations/{quote(operation_id, safe='')}/collect", body, operation_id=operation_id, extra_timeout=wait_seconds)
        result = Collected.from_json(_json(status, data, headers))
        self._check(operation_id, result.handle, result.receipt, result)
        return result

    def cancel(self, operation_id: str, *, control_action_id: str | None = None, expect_digest: str | None = None) -> Cancelled:
        """Cancels a queued operation or stops a running one before its mutation boundary. Keep
        control_action_id and send it again when retrying a cancel whose answer was lost: errand acts once."""
        operation_id = _operation_id(operation_id)
        if expect_digest is not None:
            self.expect(operation_id, expect_digest)
        control = str(uuid.uuid4()) if control_action_id is None else _operation_id(control_action_id, "control_action_id")
        body = json.dumps({"controlActionId": control}).encode("utf-8")
        status, headers, data = self._call("POST", f"/v1/operations/{quote(operation_id, safe='')}/cancel", body, operation_id=operation_id)
        result = Cancelled.from_json(_json(status, data, headers))
        self._check(operation_id, result.handle, None, result)
        return result

    def artifact(self, operation_id: str, index: int, *, receipt: Receipt | None = None) -> Artifact:
        """Evidence file `index` (the receipt's artifacts[].index), its bytes checked against errand's
        X-Errand-Sha256 and, when a receipt is given, against the receipt's sha256 for that index."""
        operation_id = _operation_id(operation_id)
        _bounded_int("index", index, 999_999)
        status, headers, data = self._call("GET", f"/v1/operations/{quote(operation_id, safe='')}/artifacts/{index}", None, operation_id=operation_id)
        if status != 200:
            _json(status, data, headers)
        digest = hashlib.sha256(data).hexdigest()
        stated = headers.get("x-errand-sha256", "")
        if digest != stated:
            raise ArtifactMismatch(f"artifact {index} of {operation_id} hashes to {digest}, errand states {stated or 'nothing'}")
        if receipt is not None:
            listed = [a for a in receipt.artifacts if a.index == index]
            if not listed or listed[0].sha256 != digest:
                raise ArtifactMismatch(f"artifact {index} of {operation_id} hashes to {digest}, the receipt lists {listed[0].sha256 if listed else 'no such artifact'}")
        return Artifact(index=index, media_type=headers.get("content-type", ""), sha256=digest, data=data)

    # Digest expectations.

    def expect(self, operation_id: str, digest: str) -> None:
        """Every later answer about operation_id must carry this request digest (e.g. one the caller
        persisted with the id before a restart: see README, the recovery loop)."""
        operation_id = _operation_id(operation_id)
        if not re.fullmatch(r"hmac-sha256:[0-9a-f]{64}", digest):
            raise ValueError("a request digest is 'hmac-sha256:' and 64 lowercase hex digits")
        with self._lock:
            known = self._expected.get(operation_id)
            if known is not None and known != digest:
                raise DigestMismatch(f"operation {operation_id} is already expected with another digest", expected=known, received=digest)
            self._expected[operation_id] = digest

    def expected_digest(self, operation_id: str) -> str | None:
        """The digest answers about operation_id are checked against (computed, given, or pinned), if any."""
        with self._lock:
            return self._expected.get(_operation_id(operation_id))

    def _check(self, operation_id: str, handle: Handle, receipt: Receipt | None, answer: Any) -> None:
        if handle.operation_id != operation_id or (receipt is not None and receipt.operation_id != operation_id):
            raise DigestMismatch("errand answered about another operation", expected=operation_id, received=handle.operation_id, answer=answer)
        with self._lock:
            expected = self._expected.setdefault(operation_id, handle.request_digest)
        for received in (handle.request_digest, receipt.request_digest if receipt is not None else expected):
            if received != expected:
                raise DigestMismatch(f"operation {operation_id} is not the request this client made", expected=expected, received=received, answer=answer)

    # Transport.

    def _call(self, method: str, path: str, body: bytes | None, *, operation_id: str | None, extra_timeout: float = 0) -> tuple[int, dict[str, str], bytes]:
        connection: http.client.HTTPConnection
        timeout = self._timeout + extra_timeout
        if self._scheme == "https":
            connection = http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=self._ssl or ssl.create_default_context())
        else:
            connection = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        # Refused before a byte went out: nothing reached errand, so the plain error is the truth.
        connection.connect()
        try:
            headers = {"authorization": f"Bearer {self._token}", "accept": "application/json", "user-agent": "errand-python-client/0.1"}
            if body is not None:
                headers["content-type"] = "application/json"
            connection.request(method, self._prefix + path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            answer = {key.lower(): value for key, value in response.getheaders()}
            if response.status in (502, 503, 504) and method == "POST":
                raise OutcomeUnknown(method, path, operation_id, ConnectionError(f"HTTP {response.status} from a gateway"))
            return response.status, answer, data
        except (OSError, http.client.HTTPException) as error:
            raise OutcomeUnknown(method, path, operation_id, error) from error
        finally:
            connection.close()


def _operation_id(value: Any, name: str = "operationId") -> str:
    if not isinstance(value, str) or not _UUID.match(value.lower()) or value.strip("0-") == "":
        raise ValueError(f"{name} must be a UUID the caller chose (and keeps for every retry), e.g. {uuid.uuid4()}")
    return value.lower()


def _bounded_int(name: str, value: Any, maximum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise ValueError(f"{name} must be a whole number from 0 to {maximum}")


def _json(status: int, data: bytes, headers: dict[str, str] | None = None) -> dict[str, Any]:
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        parsed = None
    if 200 <= status < 300 and isinstance(parsed, dict):
        return parsed
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict):
        raise ErrandError("http_error", f"HTTP {status} with no errand error body", http_status=status)
    code = str(error.get("code", "http_error"))
    handle = Handle.from_json(error["handle"]) if isinstance(error.get("handle"), dict) else None
    kind: type[ErrandError] = _EXCEPTIONS.get(code, ErrandError)
    if kind is ErrandError:
        kind = Unauthorized if status == 401 else RateLimited if status == 429 else InvalidTask if status == 400 and error.get("problems") else ErrandError
    retry_after = (headers or {}).get("retry-after", "")
    return _raise(kind(code, str(error.get("message", "")), http_status=status, problems=error.get("problems"), handle=handle, retry_after=int(retry_after) if retry_after.isdigit() else None))


def _raise(error: ErrandError) -> dict[str, Any]:
    raise error

"""The client against a scripted HTTP server on loopback that answers what each test tells it to,
lies included: typed results for every status, errand's refusals as distinct exceptions, and the
checks that fail closed (another digest, another operation, an artifact that does not hash to its
stated sha256, a task the client cannot digest is never sent)."""

from __future__ import annotations

import hashlib
import json
import threading
import unittest
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from errand_client import (
    ArtifactMismatch,
    DigestMismatch,
    ErrandClient,
    ErrandError,
    IdentityMismatch,
    InvalidTask,
    LocalNormalizationError,
    OutcomeUnknown,
    RateLimited,
    request_digest,
)

KEY = bytes(range(32))


class ScriptedErrand:
    """Answers each request with the next scripted (status, headers, body); records what it got."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict[str, str], bytes]] = []
        self.requests: list[tuple[str, str, bytes]] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _serve(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                scripted.requests.append((self.command, self.path, body))
                status, headers, answer = scripted.script.pop(0) if scripted.script else (500, {}, b"{}")
                self.send_response(status)
                for name, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            do_GET = do_POST = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.script.append((status, headers or {}, body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")))

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def a_task() -> dict[str, Any]:
    return {"schemaVersion": "errand.task.v1", "operationId": str(uuid.uuid4()), "risk": "read_only", "target": {"url": "https://example.com/"}, "steps": [{"action": "expect_text", "text": "Example"}]}


def handle(operation_id: str, digest: str, phase: str = "queued", boundary: str = "not_crossed", revision: int = 1) -> dict[str, Any]:
    return {"v": 1, "operationId": operation_id, "requestDigest": digest, "revision": revision, "phase": phase, "mutationBoundary": boundary}


def receipt(operation_id: str, digest: str, status: str, boundary: str = "not_crossed", artifacts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"receiptVersion": "errand.receipt.v1", "status": status, "operationId": operation_id, "requestDigest": digest, "risk": "reversible_write", "provider": "local", "finalUrl": None, "checks": [], "steps": [], "error": None if status == "PASS" else {"code": "write_uncertain", "message": "It may have been saved.", "step": 1}, "startedAt": "2026-12-05T00:00:00.000Z", "durationMs": 10, "attempts": 1, "network": {}, "mutationBoundary": boundary, "evidenceRetention": "minimal", "fallback": [], **({"artifacts": artifacts} if artifacts else {})}


class ContractTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.errand = ScriptedErrand()
        self.addCleanup(self.errand.close)
        self.client = ErrandClient(self.errand.url, "token-1", digest_key=KEY)
        self.task = a_task()
        self.id = self.task["operationId"]
        self.digest = request_digest(KEY, self.task)


class Outcomes(ContractTestCase):
    def test_each_status_is_its_own_typed_result(self) -> None:
        self.errand.answer(201, {"status": "awaiting_approval", "created": True, "handle": handle(self.id, self.digest, "awaiting_approval"), "approval": {"url": "https://errand.example/owner/approvals/x", "expiresAt": "2026-12-05T01:00:00.000Z", "summary": "Write on example.com"}, "next": "Ask the owner."})
        submitted = self.client.submit(self.task)
        self.assertEqual(submitted.status, "awaiting_approval")
        assert submitted.approval is not None
        self.assertEqual(submitted.approval.url, "https://errand.example/owner/approvals/x")
        self.assertFalse(submitted.terminal)

        self.errand.answer(200, {"status": "uncertain", "handle": handle(self.id, self.digest, "uncertain", "crossed", 7), "receipt": receipt(self.id, self.digest, "UNCERTAIN", "crossed"), "next": "Look at the site; do not resubmit."})
        uncertain = self.client.collect(self.id)
        self.assertEqual((uncertain.status, uncertain.handle.mutation_boundary), ("uncertain", "crossed"))
        assert uncertain.receipt is not None and uncertain.receipt.error is not None
        self.assertEqual((uncertain.receipt.status, uncertain.receipt.error.code), ("UNCERTAIN", "write_uncertain"))
        self.assertTrue(uncertain.terminal)

        self.errand.answer(200, {"status": "blocked", "handle": handle(self.id, self.digest, "blocked"), "receipt": receipt(self.id, self.digest, "BLOCKED"), "next": "Nothing was done."})
        blocked = self.client.collect(self.id)
        self.assertEqual((blocked.status, blocked.handle.mutation_boundary), ("blocked", "not_crossed"))

        self.errand.answer(200, {"status": "uncertain", "outcome": "uncertain", "repeated": False, "handle": handle(self.id, self.digest, "running", "crossed"), "next": "It had started changing the site."})
        cancel = self.client.cancel(self.id)
        self.assertEqual(cancel.outcome, "uncertain")
        self.assertEqual(json.loads(self.errand.requests[-1][2])["controlActionId"].count("-"), 4, "a control id is always sent")

    def test_an_unknown_status_is_refused_not_guessed(self) -> None:
        self.errand.answer(200, {"status": "done", "handle": handle(self.id, self.digest), "next": ""})
        with self.assertRaises(ValueError):
            self.client.collect(self.id)


class Refusals(ContractTestCase):
    def test_errand_error_codes_become_distinct_exceptions(self) -> None:
        self.errand.answer(409, {"error": {"code": "identity_mismatch", "message": "This operationId names another task."}})
        with self.assertRaises(IdentityMismatch):
            self.client.submit(self.task)
        self.errand.answer(400, {"error": {"code": "invalid_task", "message": "1 problem", "problems": [{"code": "missing_field", "path": "/steps", "message": "steps"}]}})
        with self.assertRaises(InvalidTask) as invalid:
            self.client.submit(a_task())
        self.assertEqual(invalid.exception.problems[0]["path"], "/steps")
        self.errand.answer(429, {"error": {"code": "rate_limited", "message": "Wait."}}, {"retry-after": "30"})
        with self.assertRaises(RateLimited) as limited:
            self.client.inspect(self.id)
        self.assertEqual(limited.exception.retry_after, 30)
        self.errand.answer(500, b"<html>oops</html>", {"content-type": "text/html"})
        with self.assertRaises(ErrandError):
            self.client.inspect(self.id)

    def test_a_gateway_failure_on_a_post_is_an_unknown_outcome(self) -> None:
        self.errand.answer(502, b"bad gateway", {"content-type": "text/plain"})
        with self.assertRaises(OutcomeUnknown) as caught:
            self.client.submit(self.task)
        self.assertEqual(caught.exception.operation_id, self.id)

    def test_bounds_are_checked_before_anything_is_sent(self) -> None:
        for options in ({"poll_interval_ms": 60_001}, {"poll_interval_ms": -1}, {"wait_ms": 3_600_001}, {"poll_interval_ms": 1.5}, {"wait_ms": True}):
            with self.subTest(options=options):
                with self.assertRaises(ValueError):
                    self.client.collect(self.id, **options)
        for bad in ("not-a-uuid", "00000000-0000-0000-0000-000000000000", ""):
            with self.assertRaises(ValueError):
                self.client.inspect(bad)
        self.assertEqual(self.errand.requests, [])


class RunRecovers(ContractTestCase):
    """run(): one submit, one collect, and the recovery loop when the submit's answer is lost."""

    def pending(self) -> dict[str, Any]:
        return {"status": "pending", "created": True, "handle": handle(self.id, self.digest), "operation": {}, "attempts": [], "next": ""}

    def completed(self) -> dict[str, Any]:
        return {"status": "completed", "handle": handle(self.id, self.digest, "completed"), "receipt": receipt(self.id, self.digest, "PASS"), "next": ""}

    def test_a_lost_submit_answer_that_landed_is_collected_without_a_second_submit(self) -> None:
        self.errand.answer(502, b"bad gateway", {"content-type": "text/plain"})
        self.errand.answer(200, self.pending())
        self.errand.answer(200, self.completed())
        result = self.client.run(self.task, wait_ms=0)
        self.assertEqual(result.status, "completed")
        self.assertEqual([(m, p.split("/")[-1]) for m, p, _ in self.errand.requests], [("POST", "operations"), ("GET", self.id), ("POST", "collect")])

    def test_a_lost_submit_that_never_landed_is_sent_again_with_the_same_id_and_task(self) -> None:
        self.errand.answer(502, b"bad gateway", {"content-type": "text/plain"})
        self.errand.answer(404, {"error": {"code": "operation_not_found", "message": "No operation has this id."}})
        self.errand.answer(201, self.pending())
        self.errand.answer(200, self.completed())
        self.client.run(self.task, wait_ms=0)
        submits = [body for method, path, body in self.errand.requests if method == "POST" and path == "/v1/operations"]
        self.assertEqual(len(submits), 2)
        self.assertEqual(submits[0], submits[1], "the same task, byte for byte, under the same id")
        self.assertEqual(json.loads(submits[1])["operationId"], self.id)


class FailClosed(ContractTestCase):
    """The attacker is the server (or whatever sits between): each lie is caught, counted in requests."""

    def test_an_answer_with_another_request_digest_is_refused(self) -> None:
        other = "hmac-sha256:" + "0" * 64
        self.errand.answer(201, {"status": "pending", "created": True, "handle": handle(self.id, other), "next": ""})
        with self.assertRaises(DigestMismatch) as caught:
            self.client.submit(self.task)
        self.assertEqual((caught.exception.expected, caught.exception.received), (self.digest, other))

    def test_a_receipt_for_another_request_is_refused_even_under_the_right_handle(self) -> None:
        self.client.expect(self.id, self.digest)
        self.errand.answer(200, {"status": "completed", "handle": handle(self.id, self.digest, "completed"), "receipt": receipt(self.id, "hmac-sha256:" + "1" * 64, "PASS"), "next": ""})
        with self.assertRaises(DigestMismatch):
            self.client.collect(self.id)

    def test_an_answer_about_another_operation_is_refused(self) -> None:
        self.errand.answer(200, {"status": "pending", "handle": handle(str(uuid.uuid4()), self.digest), "operation": {}, "attempts": [], "next": ""})
        with self.assertRaises(DigestMismatch):
            self.client.inspect(self.id)

    def test_without_a_key_the_first_digest_is_pinned(self) -> None:
        client = ErrandClient(self.errand.url, "token-1")
        first = "hmac-sha256:" + "a" * 64
        self.errand.answer(200, {"status": "pending", "handle": handle(self.id, first), "operation": {}, "attempts": [], "next": ""})
        client.inspect(self.id)
        self.assertEqual(client.expected_digest(self.id), first)
        self.errand.answer(200, {"status": "pending", "handle": handle(self.id, "hmac-sha256:" + "b" * 64), "operation": {}, "attempts": [], "next": ""})
        with self.assertRaises(DigestMismatch):
            client.inspect(self.id)

    def test_artifact_bytes_must_hash_to_what_errand_and_the_receipt_state(self) -> None:
        data = b"\x89PNG fake image"
        good = hashlib.sha256(data).hexdigest()
        self.errand.answer(200, data, {"content-type": "image/png", "x-errand-sha256": "f" * 64})
        with self.assertRaises(ArtifactMismatch):
            self.client.artifact(self.id, 0)
        self.client.expect(self.id, self.digest)
        listed = receipt(self.id, self.digest, "PASS", artifacts=[{"index": 0, "kind": "screenshot", "moment": "final", "mediaType": "image/png", "bytes": len(data), "sha256": "e" * 64}])
        self.errand.answer(200, {"status": "completed", "handle": handle(self.id, self.digest, "completed"), "receipt": listed, "next": ""})
        collected = self.client.collect(self.id)
        self.errand.answer(200, data, {"content-type": "image/png", "x-errand-sha256": good})
        with self.assertRaises(ArtifactMismatch):
            self.client.artifact(self.id, 0, receipt=collected.receipt)

    def test_a_task_the_client_cannot_digest_is_never_sent(self) -> None:
        odd = {**self.task, "target": {"url": "https://user@example.com/"}}
        with self.assertRaises(LocalNormalizationError) as caught:
            self.client.submit(odd)
        self.assertEqual(caught.exception.path, "/target/url")
        self.assertEqual(self.errand.requests, [], "nothing reached the server")


if __name__ == "__main__":
    unittest.main()

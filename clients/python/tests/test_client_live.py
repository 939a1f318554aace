"""The client against a real errand server (see support/errand_server.py for which one): submit with a
caller-owned operationId, collect, inspect, cancel, artifacts, identity_mismatch, blocked, and answers
lost on the way back (a dropped connection, a socket timeout) recovered by inspect and collect of the
same id, never by a resubmit. Real Chromium runs every task against a fixture site on loopback."""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess
import tempfile
import unittest
import uuid
from typing import Any

from errand_client import AsyncErrandClient, ErrandClient, IdentityMismatch, OperationNotFound, OutcomeUnknown, Unauthorized, request_digest

from .support import errand_server
from .support.lossy_proxy import LossyProxy

SERVER: errand_server.ErrandUnderTest | None = None
UNAVAILABLE = ""
#: Longest wait for one task's receipt (ms); the machine may be loaded.
RECEIPT_WAIT_MS = 120_000


def setUpModule() -> None:
    global SERVER, UNAVAILABLE
    try:
        SERVER = errand_server.start()
    except errand_server.Unavailable as reason:
        UNAVAILABLE = str(reason)


def tearDownModule() -> None:
    if SERVER is not None:
        SERVER.stop()


#: Browser time per task and per step (ms): generous, as a shared 2-core machine can run at load 40,
#: where a page's body has been seen to arrive after a short step timeout had already failed the check.
TIMEOUTS = {"taskMs": 90_000, "stepMs": 30_000}


def task(path: str, steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    assert SERVER is not None
    return {"schemaVersion": "errand.task.v1", "operationId": str(uuid.uuid4()), "risk": "read_only", "target": {"url": f"{SERVER.site.origin}{path}"}, "timeouts": TIMEOUTS, "steps": steps, **extra}


class LiveTestCase(unittest.TestCase):
    def setUp(self) -> None:
        if SERVER is None:
            self.skipTest(UNAVAILABLE)
        self.server = SERVER

    def client(self, url: str | None = None, **options: Any) -> ErrandClient:
        return ErrandClient(url or self.server.url, self.server.token, digest_key=self.server.digest_key, **options)

    def unique_page(self) -> tuple[str, str]:
        """A path only this test asks for (the site counts requests by path and query)."""
        query = uuid.uuid4().hex[:12]
        return f"/page?t={query}", f"/page?t={query}"


class SubmitAndCollect(LiveTestCase):
    def test_a_read_only_task_passes_and_the_digest_errand_answers_is_the_one_computed_here(self) -> None:
        client = self.client()
        path, counted = self.unique_page()
        read = task(path, [{"action": "extract_text", "selector": "#price", "name": "price"}, {"action": "expect_text", "text": "Python fixture page"}])
        submitted = client.submit(read)
        self.assertTrue(submitted.created)
        self.assertIn(submitted.status, ("pending", "completed"))
        if self.server.digest_key is not None:
            self.assertEqual(submitted.handle.request_digest, request_digest(self.server.digest_key, read))
        collected = client.collect(read["operationId"], wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200)
        self.assertEqual(collected.status, "completed", collected.next)
        assert collected.receipt is not None and collected.page_content is not None
        self.assertEqual(collected.receipt.status, "PASS")
        self.assertEqual(collected.receipt.request_digest, submitted.handle.request_digest)
        self.assertEqual(collected.page_content.as_dict(), {"price": "42.17 EUR"})
        self.assertGreaterEqual(collected.handle.revision, submitted.handle.revision)
        self.assertEqual(self.server.site.count("GET", counted), 1)

        again = client.submit(read)
        self.assertFalse(again.created, "the same id and task is the same operation")
        self.assertEqual(again.status, "completed")
        self.assertEqual(self.server.site.count("GET", counted), 1, "a repeated submit runs nothing")

    def test_the_same_id_with_another_task_is_identity_mismatch_and_changes_nothing(self) -> None:
        client = self.client()
        first = task("/page", [{"action": "expect_text", "text": "Python fixture page"}])
        submitted = client.submit(first)
        changed = {**first, "steps": [{"action": "expect_text", "text": "Something else"}]}
        with self.assertRaises(IdentityMismatch) as caught:
            self.client().submit(changed)
        self.assertEqual(caught.exception.http_status, 409)
        inspected = client.inspect(first["operationId"])
        self.assertEqual(inspected.handle.request_digest, submitted.handle.request_digest)
        client.collect(first["operationId"], wait_ms=RECEIPT_WAIT_MS)

    def test_an_unknown_id_and_a_wrong_token_are_refused(self) -> None:
        with self.assertRaises(OperationNotFound):
            self.client().inspect(str(uuid.uuid4()))
        with self.assertRaises(Unauthorized):
            ErrandClient(self.server.url, "not-a-token").inspect(str(uuid.uuid4()))

    def test_a_destination_the_server_does_not_admit_ends_blocked_with_nothing_crossed(self) -> None:
        client = self.client()
        # Loopback, but not the fixture site errand's --allow-private admits.
        refused = {**task("/page", [{"action": "expect_text", "text": "never"}]), "target": {"url": "http://127.0.0.1:9/"}}
        client.submit(refused)
        collected = client.collect(refused["operationId"], wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200)
        self.assertEqual(collected.status, "blocked", json.dumps(collected.raw)[:800])
        assert collected.receipt is not None
        self.assertEqual(collected.receipt.status, "BLOCKED")
        self.assertEqual(collected.handle.mutation_boundary, "not_crossed")

    def test_cancel_stops_a_slow_read_and_a_repeated_control_id_acts_once(self) -> None:
        client = self.client()
        slow = task("/slow", [{"action": "expect_text", "text": "Slow done"}])
        client.submit(slow)
        control = str(uuid.uuid4())
        cancelled = client.cancel(slow["operationId"], control_action_id=control)
        self.assertIn(cancelled.outcome, ("cancelled", "cancel_requested"))
        repeated = client.cancel(slow["operationId"], control_action_id=control)
        self.assertTrue(repeated.repeated)
        collected = client.collect(slow["operationId"], wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200)
        self.assertEqual(collected.status, "cancelled", json.dumps(collected.raw)[:800])

    def test_a_screenshot_artifact_is_read_and_checked_against_the_receipt(self) -> None:
        client = self.client()
        shot = task("/page", [{"action": "expect_text", "text": "Python fixture page"}], evidence={"screenshots": "final"})
        client.submit(shot)
        collected = client.collect(shot["operationId"], wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200)
        assert collected.receipt is not None
        self.assertEqual(collected.receipt.status, "PASS")
        self.assertEqual(len(collected.receipt.artifacts), 1)
        artifact = client.artifact(shot["operationId"], 0, receipt=collected.receipt)
        self.assertEqual(artifact.sha256, collected.receipt.artifacts[0].sha256)
        self.assertTrue(artifact.data.startswith(b"\x89PNG") or artifact.data.startswith(b"\xff\xd8"), artifact.media_type)


class LostAnswers(LiveTestCase):
    """The request reaches errand, errand answers, the caller never sees it. The recovery loop: the id
    was persisted before the call; after the failure a fresh client (as after a restart) inspects that
    id, then collects it. No second submit, no new id; the site sees the task's requests once."""

    def recover(self, persisted: dict[str, str], counted: tuple[str, str]) -> None:
        fresh = self.client()
        inspected = fresh.inspect(persisted["operationId"], expect_digest=persisted["requestDigest"])
        self.assertIn(inspected.status, ("pending", "completed"))
        collected = fresh.collect(persisted["operationId"], wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200)
        self.assertEqual(collected.status, "completed", collected.next)
        assert collected.receipt is not None
        self.assertEqual(collected.receipt.status, "PASS")
        self.assertEqual(collected.receipt.attempts, 1)
        self.assertEqual(self.server.site.count(*counted), 1, "the task ran once")

    def lossy(self, mode: str) -> LossyProxy:
        host, _, port = self.server.url.removeprefix("http://").removeprefix("https://").partition(":")
        if self.server.url.startswith("https://"):
            self.skipTest("the lossy proxy speaks plain HTTP; run these against an http:// ERRAND_URL")
        proxy = LossyProxy(host, int(port or 80), mode)
        self.addCleanup(proxy.close)
        return proxy

    def test_a_connection_dropped_after_submit_is_recovered_by_inspect_and_collect_of_the_same_id(self) -> None:
        proxy = self.lossy("drop")
        client = self.client(proxy.origin)
        path, counted = self.unique_page()
        read = task(path, [{"action": "expect_text", "text": "Python fixture page"}])
        persisted = {"operationId": read["operationId"], "requestDigest": request_digest(self.server.digest_key, read) if self.server.digest_key else ""}
        with self.assertRaises(OutcomeUnknown) as caught:
            client.submit(read)
        self.assertEqual(caught.exception.operation_id, read["operationId"])
        self.assertTrue(proxy.answered.wait(60), "errand answered the submit the client never saw")
        self.assertIn(b" 201 ", proxy.answers[0].split(b"\r\n")[0], "it was created by that one submit")
        if not persisted["requestDigest"]:
            persisted["requestDigest"] = json.loads(proxy.answers[0].partition(b"\r\n\r\n")[2])["handle"]["requestDigest"]
        self.recover(persisted, ("GET", counted))

    def test_a_write_whose_submit_timed_out_is_recovered_without_a_second_write(self) -> None:
        if not self.server.started_here:
            self.skipTest("writes need the owner's approval on a server these tests did not start")
        proxy = self.lossy("hold")
        client = self.client(proxy.origin, timeout=1.0)
        write = {**task("/form", [{"action": "fill", "selector": "#note", "value": "from python"}, {"action": "click", "selector": "#save"}, {"action": "expect_text", "text": "Saved"}]), "risk": "reversible_write", "approved": True}
        assert self.server.digest_key is not None
        persisted = {"operationId": write["operationId"], "requestDigest": request_digest(self.server.digest_key, write)}
        posts_before = self.server.site.count("POST", "/save")
        with self.assertRaises(OutcomeUnknown):
            client.submit(write)
        self.assertTrue(proxy.answered.wait(60))
        self.assertIn(b" 201 ", proxy.answers[0].split(b"\r\n")[0], "errand created it; the client never heard")
        self.recover(persisted, ("GET", "/form"))
        self.assertEqual(self.server.site.count("POST", "/save") - posts_before, 1, "one write, never two")


    def test_run_recovers_a_dropped_submit_answer_on_its_own_with_one_submit(self) -> None:
        proxy = self.lossy("drop_first")
        path, counted = self.unique_page()
        read = task(path, [{"action": "expect_text", "text": "Python fixture page"}])
        collected = self.client(proxy.origin).run(read, wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200)
        self.assertEqual(collected.status, "completed", collected.next)
        assert collected.receipt is not None
        self.assertEqual(collected.receipt.status, "PASS")
        submits = [line for line in proxy.requests if line.startswith("POST /v1/operations ")]
        self.assertEqual(len(submits), 1, proxy.requests)
        self.assertTrue(proxy.requests[1].startswith(f"GET /v1/operations/{read['operationId']} "), proxy.requests)
        self.assertEqual(self.server.site.count("GET", counted), 1)


class Https(LiveTestCase):
    """errand behind a TLS front on loopback (a self-signed certificate for 127.0.0.1, made with openssl)."""

    def test_the_client_verifies_the_certificate_and_works_over_https(self) -> None:
        if shutil.which("openssl") is None:
            self.skipTest("no openssl to make a test certificate")
        if not self.server.url.startswith("http://"):
            self.skipTest("the TLS front forwards to a plain-HTTP errand")
        scratch = tempfile.mkdtemp(prefix="errand-python-tls-")
        self.addCleanup(shutil.rmtree, scratch, True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{scratch}/key.pem", "-out", f"{scratch}/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
        server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_side.load_cert_chain(f"{scratch}/cert.pem", f"{scratch}/key.pem")
        host, _, port = self.server.url.removeprefix("http://").partition(":")
        front = LossyProxy(host, int(port or 80), "relay", tls=server_side)
        self.addCleanup(front.close)

        untrusting = self.client(front.origin)
        with self.assertRaises(ssl.SSLCertVerificationError):
            untrusting.inspect(str(uuid.uuid4()))
        self.assertEqual(front.requests, [], "nothing was sent to a server whose certificate did not verify")

        client = self.client(front.origin, ssl_context=ssl.create_default_context(cafile=f"{scratch}/cert.pem"))
        path, counted = self.unique_page()
        read = task(path, [{"action": "expect_text", "text": "Python fixture page"}])
        collected = client.run(read, wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200)
        assert collected.receipt is not None
        self.assertEqual(collected.receipt.status, "PASS")
        self.assertEqual(self.server.site.count("GET", counted), 1)


class AsyncClient(LiveTestCase):
    def test_two_tasks_submitted_and_collected_concurrently(self) -> None:
        async def scenario() -> list[str]:
            client = AsyncErrandClient(self.server.url, self.server.token, digest_key=self.server.digest_key)
            tasks = [task(self.unique_page()[0], [{"action": "expect_text", "text": "Python fixture page"}]) for _ in range(2)]
            await asyncio.gather(*(client.submit(t) for t in tasks))
            collected = await asyncio.gather(*(client.collect(t["operationId"], wait_ms=RECEIPT_WAIT_MS, poll_interval_ms=200) for t in tasks))
            inspected = await client.inspect(tasks[0]["operationId"])
            self.assertEqual(inspected.status, "completed")
            return [c.receipt.status if c.receipt else c.status for c in collected], [json.dumps(c.raw)[:1500] for c in collected]

        statuses, answers = asyncio.run(scenario())
        self.assertEqual(statuses, ["PASS", "PASS"], answers)


if __name__ == "__main__":
    unittest.main()

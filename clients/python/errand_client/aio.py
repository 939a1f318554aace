"""The asyncio client: the synchronous client's calls run in worker threads (asyncio.to_thread),
so the event loop never blocks on the network; the pause between collect looks is an asyncio.sleep,
which holds no thread. Same arguments, results, exceptions and digest checks as ErrandClient."""

from __future__ import annotations

import asyncio
import ssl
import time
from typing import Any

from .client import LONG_POLL_SECONDS, MAX_POLL_INTERVAL_MS, MAX_WAIT_MS, ErrandClient, _bounded_int, _operation_id
from .errors import OperationNotFound, OutcomeUnknown
from .types import Artifact, Cancelled, Collected, Inspection, Receipt, Submitted


class AsyncErrandClient:
    def __init__(self, base_url: str, token: str, *, digest_key: bytes | None = None, timeout: float = 30.0, ssl_context: ssl.SSLContext | None = None) -> None:
        self.sync = ErrandClient(base_url, token, digest_key=digest_key, timeout=timeout, ssl_context=ssl_context)

    async def submit(self, task: dict[str, Any]) -> Submitted:
        return await asyncio.to_thread(self.sync.submit, task)

    async def run(self, task: dict[str, Any], *, wait_ms: int = 60_000, poll_interval_ms: int = 1_000) -> Collected:
        """ErrandClient.run's recovery loop; the collect waits as AsyncErrandClient.collect does."""
        operation_id = _operation_id(task.get("operationId") if isinstance(task, dict) else None)
        _bounded_int("wait_ms", wait_ms, MAX_WAIT_MS)
        _bounded_int("poll_interval_ms", poll_interval_ms, MAX_POLL_INTERVAL_MS)
        try:
            await self.submit(task)
        except OutcomeUnknown:
            try:
                await self.inspect(operation_id)
            except OperationNotFound:
                await self.submit(task)
        return await self.collect(operation_id, wait_ms=wait_ms, poll_interval_ms=poll_interval_ms)

    async def inspect(self, operation_id: str, *, expect_digest: str | None = None) -> Inspection:
        return await asyncio.to_thread(self.sync.inspect, operation_id, expect_digest=expect_digest)

    async def collect(self, operation_id: str, *, wait_ms: int = 0, poll_interval_ms: int = 1_000, expect_digest: str | None = None) -> Collected:
        operation_id = _operation_id(operation_id)
        _bounded_int("wait_ms", wait_ms, MAX_WAIT_MS)
        _bounded_int("poll_interval_ms", poll_interval_ms, MAX_POLL_INTERVAL_MS)
        if expect_digest is not None:
            self.sync.expect(operation_id, expect_digest)
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            remaining = deadline - time.monotonic()
            result = await asyncio.to_thread(self.sync.collect_once, operation_id, wait_seconds=min(LONG_POLL_SECONDS, max(0, int(remaining))))
            remaining = deadline - time.monotonic()
            if result.status != "pending" or remaining <= 0:
                return result
            await asyncio.sleep(min(poll_interval_ms / 1000, remaining))

    async def cancel(self, operation_id: str, *, control_action_id: str | None = None, expect_digest: str | None = None) -> Cancelled:
        return await asyncio.to_thread(self.sync.cancel, operation_id, control_action_id=control_action_id, expect_digest=expect_digest)

    async def artifact(self, operation_id: str, index: int, *, receipt: Receipt | None = None) -> Artifact:
        return await asyncio.to_thread(self.sync.artifact, operation_id, index, receipt=receipt)

    def expect(self, operation_id: str, digest: str) -> None:
        self.sync.expect(operation_id, digest)

    def expected_digest(self, operation_id: str) -> str | None:
        return self.sync.expected_digest(operation_id)

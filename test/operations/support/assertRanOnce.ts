// The end state of a drain of read-only operations, shared by the multi-process and several-machines
// tests. Not a test file.
import assert from "node:assert/strict";
import type { CountingServer } from "./countingServer.js";
import type { Harness } from "./harness.js";

/**
 * Asserts that each operation in `ids` reached the site exactly once, ended PASS on its first
 * attempt, and that the journal verifies with exactly created, claimed and finished per operation.
 */
export async function assertEachRanOnce(h: Harness, server: CountingServer, ids: readonly string[]): Promise<void> {
  for (const id of ids) assert.equal(server.count("GET", `/read/${id}`), 1, `operation ${id} was executed exactly once`);
  for (const id of ids) {
    const collected = await h.service.collect(id);
    assert.ok(collected.ok);
    assert.equal(collected.receipt?.status, "PASS");
    assert.equal(collected.receipt?.attempts, 1);
  }
  const verdict = await h.service.verifyJournal();
  assert.ok(verdict.ok, JSON.stringify(verdict));
  assert.equal(verdict.events, ids.length * 3, "created, claimed, finished for each");
}

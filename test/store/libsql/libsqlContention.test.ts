// The libSQL operations store under contention: four connections to one file: database create,
// claim, renew, cross the boundary, cancel and finish (with and without the fused next claim) at once.
// Every operation ends exactly once, no two runners ever hold one, nothing is lost to a refused
// batch, and the journal verifies.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../../src/journal/verifyJournal.js";
import { openLibsqlTestClient } from "../../fixtures/libsqlTestClient.js";
import { openLibsqlStore } from "../../../src/store/libsql/openLibsqlStore.js";
import type { AttemptResolution, ClaimedOperation, OperationRecord, Store } from "../../../src/store/Store.js";
import { sampleReceipt } from "../../support/sampleReceipt.js";

const OPERATIONS = 60;
const RUNNERS = 4;
const LEASE_MS = 60_000;

const finish = (operation: OperationRecord): AttemptResolution => {
  const { operationId, requestDigest, risk, attempts, mutationBoundary } = operation;
  return {
    kind: "finish",
    phase: "completed",
    receipt: sampleReceipt({ status: "PASS", operationId, requestDigest, risk, attempts, mutationBoundary }),
    reason: "attempt_finished",
  };
};

test("libsql store under contention: four connections run sixty operations, each ends once, and the journal verifies", async () => {
  const home = mkdtempSync(join(tmpdir(), "errand-libsql-contention-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const sealer = createJournalSealer(randomBytes(32));
  const stores: Store[] = [];
  for (let i = 0; i < RUNNERS; i += 1) stores.push(await openLibsqlStore({ client: await openLibsqlTestClient({ url }), where: url, sealer }));
  try {
    const ids = Array.from({ length: OPERATIONS }, () => randomUUID());
    const holding = new Set<string>();
    const finished: string[] = [];
    const cancelled: string[] = [];

    async function run(store: Store, runnerId: string, index: number): Promise<void> {
      let claimed: ClaimedOperation | undefined = await store.claimNext(runnerId, LEASE_MS);
      for (let idle = 0; idle < 40;) {
        if (claimed === undefined) {
          idle += 1;
          await new Promise((resolve) => setTimeout(resolve, 5));
          claimed = await store.claimNext(runnerId, LEASE_MS);
          continue;
        }
        const id = claimed.operation.operationId;
        assert.ok(!holding.has(id), `${id} is held by two runners at once`);
        holding.add(id);
        assert.equal((await store.renewLease(claimed.lease, LEASE_MS)).held, true);
        const crossed = await store.crossMutationBoundary(claimed.lease);
        holding.delete(id);
        const result = await store.finishAttempt(claimed.lease, finish, index % 2 === 0 ? { runnerId, leaseMs: LEASE_MS } : undefined);
        if (result.applied !== undefined) finished.push(id);
        else assert.notEqual(crossed, "crossed", "a crossed attempt that was not cancelled finishes");
        claimed = result.next ?? (await store.claimNext(runnerId, LEASE_MS));
      }
    }

    const creating = (async () => {
      for (const [i, operationId] of ids.entries()) {
        const store = stores[i % RUNNERS] as Store;
        const created = await store.createOperation(
          {
            operationId,
            requestDigest: `hmac-sha256:${randomBytes(32).toString("hex")}`,
            risk: "read_only",
            maxAttempts: 1,
            taskJson: JSON.stringify({ operationId }),
            details: {},
          },
          1 << 30,
        );
        assert.equal(created.kind, "created");
        if (i % 10 === 3) {
          const answer = await (stores[(i + 1) % RUNNERS] as Store).cancelOperation(operationId, randomUUID(), (op) =>
            sampleReceipt({
              status: "CANCELLED",
              operationId: op.operationId,
              requestDigest: op.requestDigest,
              risk: op.risk,
              attempts: op.attempts,
              mutationBoundary: op.mutationBoundary,
            }),
          );
          if (answer.kind === "applied" && answer.outcome === "cancelled") cancelled.push(operationId);
        }
      }
    })();
    await Promise.all([creating, ...stores.map((store, i) => run(store, `runner-${i}`, i))]);

    const ended = [...finished, ...cancelled];
    assert.equal(new Set(ended).size, ended.length, "no operation ended twice");
    const phases = await stores[0]?.status();
    assert.equal((phases?.phases.completed ?? 0) + (phases?.phases.cancelled ?? 0), OPERATIONS, JSON.stringify(phases));
    for (const store of stores) assert.deepEqual(store.takeIntegrityRefusals(), [], "a concurrent commit never makes a row look tampered");
    const verdict = await verifyJournal(stores[0] as Store, sealer);
    assert.ok(verdict.ok, JSON.stringify(verdict));
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    rmSync(home, { recursive: true, force: true });
  }
});

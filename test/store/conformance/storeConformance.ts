// The contract every Store backend must keep, written once against the Store port. A backend's own
// test file calls storeConformance with a factory; SQLite does (test/store/sqliteConformance.test.ts),
// and a PostgreSQL adapter must pass the same suite before it is used. Not a test file itself.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import type { JournalSealer } from "../../../src/journal/createJournalSealer.js";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../../src/journal/verifyJournal.js";
import type { Receipt, ReceiptStatus } from "../../../src/receipt/receiptTypes.js";
import type { AttemptResolution, NewOperation, OperationRecord, Store } from "../../../src/store/Store.js";
import { OperationTamperedError } from "../../../src/store/storeErrors.js";
import { sampleReceipt } from "../../support/sampleReceipt.js";

/** A backend opened for one test, on its own fresh database, with the suite's key and clock. */
export interface StoreUnderTest {
  store: Store;
  /** Another connection to the same database, as a second runner process would open it. */
  another(): Store;
  /** Changes one column of an operation's stored row, as someone with database access but no key would. */
  tamper(operationId: string, column: "phase" | "attempts" | "mutation_boundary" | "risk" | "submitted_by", value: string | number): Promise<void>;
  close(): Promise<void>;
}

export type OpenStoreUnderTest = (options: { sealer: JournalSealer; clock: () => number }) => Promise<StoreUnderTest>;

const T0 = Date.UTC(2026, 0, 1);
const LEASE_MS = 60_000;
const QUOTA = 64 * 1024 * 1024;

function newOperation(extra: Partial<NewOperation> = {}): NewOperation {
  const operationId = randomUUID();
  const task = {
    schemaVersion: "errand.task.v1",
    operationId,
    risk: extra.risk ?? "read_only",
    target: { url: "https://example.com/" },
    steps: [{ action: "expect_text", text: "Example" }],
  };
  return {
    operationId,
    requestDigest: `hmac-sha256:${randomBytes(32).toString("hex")}`,
    risk: "read_only",
    maxAttempts: 2,
    taskJson: JSON.stringify(task),
    details: {},
    ...extra,
  };
}

function receipt(operation: OperationRecord, status: ReceiptStatus): Receipt {
  const { operationId, requestDigest, risk, attempts, mutationBoundary } = operation;
  return sampleReceipt({ status, operationId, requestDigest, risk, attempts, mutationBoundary });
}

const finish =
  (status: ReceiptStatus = "PASS") =>
  (operation: OperationRecord): AttemptResolution => ({ kind: "finish", phase: "completed", receipt: receipt(operation, status), reason: "attempt_finished" });

/** Runs the whole conformance suite against one backend. */
export function storeConformance(backend: string, open: OpenStoreUnderTest, options: { skip?: string } = {}): void {
  const sealer = createJournalSealer(randomBytes(32));

  /** Opens a fresh store with a clock the test moves, runs `body`, checks the journal still verifies, closes. */
  async function withStore(body: (s: StoreUnderTest, clock: { now: number }) => Promise<void>, verify = true): Promise<void> {
    const clock = { now: T0 };
    const s = await open({ sealer, clock: () => clock.now });
    try {
      await body(s, clock);
      if (verify) {
        const verdict = await verifyJournal(s.store, sealer);
        assert.ok(verdict.ok, JSON.stringify(verdict));
      }
    } finally {
      await s.close();
    }
  }

  describe(`Store conformance: ${backend}`, options.skip === undefined ? {} : { skip: options.skip }, () => {
    test(`${backend}: create is idempotent by id, never overwrites, and respects the quota`, () =>
      withStore(async ({ store }) => {
        const input = newOperation();
        const first = await store.createOperation(input, QUOTA);
        assert.equal(first.kind, "created");
        const again = await store.createOperation({ ...input, requestDigest: "hmac-sha256:other" }, QUOTA);
        assert.ok(again.kind === "existing" && again.operation.requestDigest === input.requestDigest);
        const view = await store.readOperation(input.operationId);
        assert.ok(view?.kind === "live" && view.operation.phase === "queued" && view.operation.revision === 1);
        assert.equal(view.latestEvent?.type, "operation_created");
        assert.equal((await store.createOperation(newOperation(), 10)).kind, "quota_exceeded");
        assert.equal(await store.readOperation(randomUUID()), undefined);
      }));

    test(`${backend}: claims take the oldest eligible operation, never one awaiting approval or delayed`, () =>
      withStore(async ({ store }, clock) => {
        const waiting = newOperation({ approvalTtlMs: 60_000 });
        await store.createOperation(waiting, QUOTA);
        const first = newOperation();
        await store.createOperation(first, QUOTA);
        clock.now += 1;
        const second = newOperation();
        await store.createOperation(second, QUOTA);
        assert.equal((await store.claimNext("r", LEASE_MS, second.operationId))?.operation.operationId, second.operationId, "onlyOperationId");
        const claimed = await store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        assert.deepEqual(
          [claimed.operation.operationId, claimed.operation.phase, claimed.attempt, claimed.operation.leaseExpiresMs],
          [first.operationId, "running", 1, clock.now + LEASE_MS],
        );
        assert.equal(claimed.taskJson, first.taskJson);
        assert.equal(await store.claimNext("r", LEASE_MS), undefined, "nothing else is eligible");
        // Back in the queue with a delay: not eligible before it.
        await store.finishAttempt(claimed.lease, () => ({
          kind: "requeue",
          delayMs: 5_000,
          attemptOutcome: "FAIL",
          errorCode: "step_failed",
          provider: null,
          reason: "retry",
        }));
        assert.equal(await store.claimNext("r", LEASE_MS), undefined);
        clock.now += 5_000;
        assert.equal((await store.claimNext("r", LEASE_MS))?.attempt, 2);
      }));

    test(`${backend}: two connections claiming at once never get the same operation`, () =>
      withStore(async (s) => {
        const other = s.another();
        try {
          for (let i = 0; i < 30; i += 1) await s.store.createOperation(newOperation(), QUOTA);
          const claimed: string[] = [];
          for (let i = 0; i < 20; i += 1) {
            const both = await Promise.all([s.store.claimNext("a", LEASE_MS), other.claimNext("b", LEASE_MS)]);
            for (const c of both) if (c !== undefined) claimed.push(c.operation.operationId);
          }
          assert.equal(claimed.length, 30);
          assert.equal(new Set(claimed).size, 30);
        } finally {
          await other.close();
        }
      }));

    test(`${backend}: a lease token that no longer holds changes nothing (heartbeat, boundary, finish)`, () =>
      withStore(async ({ store }, clock) => {
        const input = newOperation({ risk: "reversible_write" });
        await store.createOperation(input, QUOTA);
        const claimed = await store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        const stale = { operationId: input.operationId, token: randomUUID() };
        assert.deepEqual(await store.renewLease(stale, LEASE_MS), { held: false, cancelRequested: false });
        assert.deepEqual(await store.checkLease(stale), { held: false, cancelRequested: false });
        assert.equal(await store.crossMutationBoundary(stale), "lease_lost");
        const lost = await store.finishAttempt(stale, finish());
        assert.equal(lost.applied, undefined);
        clock.now += 1_000;
        assert.deepEqual(await store.renewLease(claimed.lease, LEASE_MS), { held: true, cancelRequested: false });
        assert.equal(await store.crossMutationBoundary(claimed.lease), "crossed");
        const done = await store.finishAttempt(claimed.lease, (current) => {
          assert.equal(current.mutationBoundary, "crossed", "resolve sees the operation as it stands");
          return finish()(current);
        });
        assert.equal(done.applied?.kind, "finish");
        const view = await store.readOperation(input.operationId);
        assert.ok(view?.kind === "live" && view.operation.phase === "completed" && view.operation.leaseOwner === null);
        assert.equal(view.receiptEvent?.type, "operation_finished");
        const revisions = (await store.readOperationEvents(input.operationId)).map((e) => (JSON.parse(e.body ?? "{}") as { revision: number }).revision);
        assert.deepEqual(revisions, [1, 2, 3, 4], "one event per change, revisions contiguous");
      }));

    test(`${backend}: finishing an attempt can claim the next operation in the same call`, () =>
      withStore(async ({ store }) => {
        const a = newOperation();
        const b = newOperation();
        await store.createOperation(a, QUOTA);
        await store.createOperation(b, QUOTA);
        const claimed = await store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        const result = await store.finishAttempt(claimed.lease, finish(), { runnerId: "r", leaseMs: LEASE_MS });
        assert.equal(result.applied?.kind, "finish");
        const other = claimed.operation.operationId === a.operationId ? b : a;
        assert.equal(result.next?.operation.operationId, other.operationId);
        assert.equal(result.next?.operation.phase, "running");
      }));

    test(`${backend}: expired leases are recovered with the resolution decided on the current record`, () =>
      withStore(async ({ store }, clock) => {
        const input = newOperation();
        await store.createOperation(input, QUOTA);
        await store.claimNext("crashed", LEASE_MS);
        assert.deepEqual(await store.recoverExpiredLeases(() => assert.fail("not expired yet"), 10), []);
        clock.now += LEASE_MS + 1;
        const seen: number[] = [];
        const recovered = await store.recoverExpiredLeases((expired) => {
          seen.push(expired.operation.attempts);
          return { kind: "requeue", delayMs: 0, attemptOutcome: "lost", errorCode: "lease_expired", provider: null, reason: "lease_expired" };
        }, 10);
        assert.deepEqual(recovered, [{ operationId: input.operationId, resolution: "requeue", phase: "queued" }]);
        assert.deepEqual(seen, [1]);
      }));

    test(`${backend}: cancel acts once per controlActionId and by phase`, () =>
      withStore(async ({ store }) => {
        const queued = newOperation();
        await store.createOperation(queued, QUOTA);
        const id = randomUUID();
        const cancelled = await store.cancelOperation(queued.operationId, id, (op) => receipt(op, "CANCELLED"));
        assert.ok(cancelled.kind === "applied" && cancelled.outcome === "cancelled" && cancelled.operation.phase === "cancelled");
        const repeated = await store.cancelOperation(queued.operationId, id, (op) => receipt(op, "CANCELLED"));
        assert.ok(repeated.kind === "repeated" && repeated.outcome === "cancelled");
        const running = newOperation({ risk: "reversible_write" });
        await store.createOperation(running, QUOTA);
        assert.equal((await store.cancelOperation(running.operationId, id, (op) => receipt(op, "CANCELLED"))).kind, "control_id_reused");
        const claimed = await store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        const requested = await store.cancelOperation(running.operationId, randomUUID(), (op) => receipt(op, "CANCELLED"));
        assert.ok(requested.kind === "applied" && requested.outcome === "cancel_requested");
        assert.deepEqual(await store.checkLease(claimed.lease), { held: true, cancelRequested: true });
        assert.equal(await store.crossMutationBoundary(claimed.lease), "cancel_requested", "the boundary can no longer be crossed");
        assert.equal((await store.cancelOperation(randomUUID(), randomUUID(), (op) => receipt(op, "CANCELLED"))).kind, "not_found");
      }));

    test(`${backend}: the owner's decision is bound to the digest and the expiry`, () =>
      withStore(async ({ store }, clock) => {
        const blocked = (op: OperationRecord): Receipt => receipt(op, "BLOCKED");
        const approved = newOperation({ approvalTtlMs: 10_000 });
        const denied = newOperation({ approvalTtlMs: 10_000 });
        const expired = newOperation({ approvalTtlMs: 10_000 });
        for (const input of [approved, denied, expired]) await store.createOperation(input, QUOTA);
        const decision = (requestDigest: string, approve: boolean) => ({ approve, requestDigest, decidedBy: "owner (test)", via: "cli" as const });
        assert.equal((await store.decideApproval(approved.operationId, decision("hmac-sha256:wrong", true), blocked)).kind, "digest_mismatch");
        assert.equal((await store.decideApproval(approved.operationId, decision(approved.requestDigest, true), blocked)).kind, "approved");
        assert.equal((await store.decideApproval(denied.operationId, decision(denied.requestDigest, false), blocked)).kind, "denied");
        clock.now += 10_000;
        assert.deepEqual(await store.expireApprovals(blocked, 10), [expired.operationId]);
        assert.equal((await store.decideApproval(expired.operationId, decision(expired.requestDigest, true), blocked)).kind, "expired");
        assert.equal((await store.claimNext("r", LEASE_MS))?.operation.operationId, approved.operationId, "only the approved one runs");
        assert.equal(await store.claimNext("r", LEASE_MS), undefined);
      }));

    test(`${backend}: a row edited without the key is never claimed, cancelled or verified as intact`, () =>
      withStore(async (s, clock) => {
        const edited = newOperation();
        const intact = newOperation();
        await s.store.createOperation(edited, QUOTA);
        clock.now += 1; // the edited one is first in line
        await s.store.createOperation(intact, QUOTA);
        await s.tamper(edited.operationId, "attempts", 7);
        assert.equal((await s.store.claimNext("r", LEASE_MS))?.operation.operationId, intact.operationId, "the edited row is skipped");
        assert.deepEqual(
          s.store.takeIntegrityRefusals().map((r) => r.operationId),
          [edited.operationId],
        );
        assert.deepEqual(s.store.takeIntegrityRefusals(), [], "each refusal is reported once");
        await assert.rejects(
          s.store.cancelOperation(edited.operationId, randomUUID(), (op) => receipt(op, "CANCELLED")),
          OperationTamperedError,
        );
        const verdict = await verifyJournal(s.store, sealer);
        assert.ok(!verdict.ok && verdict.fault === "operation_state" && verdict.operationId === edited.operationId);
      }, false));

    test(`${backend}: the submitter is stated by every event, listed by, and an edited submitter fails authentication`, () =>
      withStore(async (s) => {
        const mine = newOperation({ submittedBy: "oauth:family-a" });
        const owners = newOperation();
        await s.store.createOperation(mine, QUOTA);
        await s.store.createOperation(owners, QUOTA);
        const view = await s.store.readOperation(mine.operationId);
        assert.ok(view?.kind === "live");
        assert.equal(view.operation.submittedBy, "oauth:family-a");
        assert.equal(
          (JSON.parse(view.latestEvent?.body ?? "{}") as { submittedBy?: string }).submittedBy,
          "oauth:family-a",
          "the creation event states the submitter",
        );
        assert.equal((await s.store.readOperationTask(owners.operationId))?.operation.submittedBy, "owner", "no submitter named: the owner");
        assert.deepEqual(
          (await s.store.listOperations({ submittedBy: "oauth:family-a", limit: 10 })).map((o) => o.operationId),
          [mine.operationId],
        );
        assert.equal((await s.store.readOperation(mine.operationId, "oauth:family-a"))?.kind, "live");
        assert.equal(await s.store.readOperation(mine.operationId, "oauth:family-b"), undefined, "another submitter's operation reads as no operation");
        // Someone with the database but not the key hands the owner's operation to grant A.
        await s.tamper(owners.operationId, "submitted_by", "oauth:family-a");
        await assert.rejects(
          s.store.cancelOperation(owners.operationId, randomUUID(), (op) => receipt(op, "CANCELLED")),
          OperationTamperedError,
        );
        const verdict = await verifyJournal(s.store, sealer);
        assert.ok(!verdict.ok && verdict.fault === "operation_state" && verdict.operationId === owners.operationId, JSON.stringify(verdict));
      }, false));

    test(`${backend}: finishing an attempt skips an edited successor and claims the next intact one in the same call`, () =>
      withStore(async (s, clock) => {
        const running = newOperation();
        await s.store.createOperation(running, QUOTA);
        const claimed = await s.store.claimNext("r", LEASE_MS);
        assert.equal(claimed?.operation.operationId, running.operationId);
        const edited = newOperation();
        const intact = newOperation();
        await s.store.createOperation(edited, QUOTA);
        clock.now += 1; // the edited one is first in line for the successor
        await s.store.createOperation(intact, QUOTA);
        await s.tamper(edited.operationId, "attempts", 3);
        const result = await s.store.finishAttempt(claimed.lease, finish(), { runnerId: "r", leaseMs: LEASE_MS });
        assert.equal(result.applied?.kind, "finish");
        assert.equal(result.next?.operation.operationId, intact.operationId, "the edited row is skipped");
        assert.equal(result.next?.attempt, 1);
        assert.deepEqual(
          s.store.takeIntegrityRefusals().map((r) => r.operationId),
          [edited.operationId],
        );
        const view = await s.store.readOperation(running.operationId);
        assert.ok(view?.kind === "live" && view.operation.phase === "completed");
        assert.equal(view.receiptEvent?.type, "operation_finished", "the resolution written with the claim is the receipt event");
        const verdict = await verifyJournal(s.store, sealer);
        assert.ok(!verdict.ok && verdict.fault === "operation_state" && verdict.operationId === edited.operationId, JSON.stringify(verdict));
      }, false));

    test(`${backend}: a finishing attempt whose row was edited is refused while the successor is still claimed`, () =>
      withStore(async (s, clock) => {
        const running = newOperation();
        await s.store.createOperation(running, QUOTA);
        const claimed = await s.store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        clock.now += 1;
        const next = newOperation();
        await s.store.createOperation(next, QUOTA);
        await s.tamper(running.operationId, "mutation_boundary", "crossed");
        const result = await s.store.finishAttempt(claimed.lease, finish(), { runnerId: "r", leaseMs: LEASE_MS });
        assert.equal(result.applied, undefined, "nothing is written for the edited row");
        assert.equal(result.next?.operation.operationId, next.operationId);
        assert.deepEqual(
          s.store.takeIntegrityRefusals().map((r) => r.operationId),
          [running.operationId],
        );
      }, false));

    test(`${backend}: nextQueuedMs says when the earliest queued operation is eligible`, () =>
      withStore(async ({ store }, clock) => {
        assert.equal(await store.nextQueuedMs(), null, "nothing queued");
        const input = newOperation();
        await store.createOperation(input, QUOTA);
        assert.equal(await store.nextQueuedMs(), clock.now);
        const claimed = await store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        assert.equal(await store.nextQueuedMs(), null, "a running operation is not queued");
        await store.finishAttempt(claimed.lease, () => ({
          kind: "requeue",
          delayMs: 7_000,
          attemptOutcome: "FAIL",
          errorCode: "timeout",
          provider: null,
          reason: "retry",
        }));
        assert.equal(await store.nextQueuedMs(), clock.now + 7_000, "a delayed retry is due after its delay, on the store's clock");
        const status = await store.status();
        assert.deepEqual([status.phases.queued, status.delayed, status.nextEligibleMs], [1, 1, clock.now + 7_000]);
      }));

    test(`${backend}: held results are kept per operation, replaced by a later attempt, and dropped when expired`, () =>
      withStore(async ({ store }, clock) => {
        const input = newOperation();
        await store.createOperation(input, QUOTA);
        assert.equal(await store.readHeldResult(input.operationId), undefined);
        await store.holdResult({ operationId: input.operationId, attempt: 1, sealed: "sealed-1", expiresMs: clock.now + 1_000 });
        await store.holdResult({ operationId: input.operationId, attempt: 2, sealed: "sealed-2", expiresMs: clock.now + 2_000 });
        assert.deepEqual(await store.readHeldResult(input.operationId), {
          operationId: input.operationId,
          attempt: 2,
          sealed: "sealed-2",
          expiresMs: clock.now + 2_000,
        });
        const other = newOperation();
        await store.holdResult({ operationId: other.operationId, attempt: 1, sealed: "sealed-other", expiresMs: clock.now + 10_000 });
        clock.now += 2_000;
        assert.equal(await store.readHeldResult(input.operationId), undefined, "an expired result is never served");
        assert.equal(await store.dropExpiredResults(), 1);
        assert.equal((await store.readHeldResult(other.operationId))?.sealed, "sealed-other");
      }));

    test(`${backend}: reopen moves a blocked operation back to the queue once, at the revision judged, with fresh attempts`, () =>
      withStore(async (s) => {
        const { store } = s;
        const input = newOperation({ maxAttempts: 1 });
        await store.createOperation(input, QUOTA);
        const claimed = await store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        await store.finishAttempt(claimed.lease, (op) => ({
          kind: "finish",
          phase: "blocked",
          receipt: receipt(op, "BLOCKED"),
          reason: "provider_unavailable",
        }));
        const blocked = await store.readOperation(input.operationId);
        assert.ok(blocked?.kind === "live" && blocked.operation.phase === "blocked" && blocked.receiptEvent !== undefined);
        assert.equal(
          await store.reopenOperation(input.operationId, blocked.operation.revision - 1, 1, "resubmitted"),
          undefined,
          "a stale revision changes nothing",
        );
        const reopened = await store.reopenOperation(input.operationId, blocked.operation.revision, 1, "resubmitted");
        assert.ok(reopened !== undefined);
        assert.deepEqual(
          [reopened.phase, reopened.revision, reopened.maxAttempts, reopened.receiptStatus],
          ["queued", blocked.operation.revision + 1, 2, null],
        );
        const view = await store.readOperation(input.operationId);
        assert.ok(view?.kind === "live" && view.receiptEvent === undefined && view.latestEvent?.type === "operation_reopened", "the old receipt is detached");
        assert.equal(await store.reopenOperation(input.operationId, blocked.operation.revision, 1, "resubmitted"), undefined, "only once");
        assert.equal((await store.claimNext("r", LEASE_MS))?.attempt, 2);
        // A blocked row edited behind errand's back is refused, not reopened.
        const edited = newOperation({ maxAttempts: 1 });
        await store.createOperation(edited, QUOTA);
        const c2 = await store.claimNext("r", LEASE_MS, edited.operationId);
        assert.ok(c2 !== undefined);
        await store.finishAttempt(c2.lease, (op) => ({ kind: "finish", phase: "blocked", receipt: receipt(op, "BLOCKED"), reason: "provider_unavailable" }));
        await s.tamper(edited.operationId, "attempts", 0);
        const editedView = await store.readOperation(edited.operationId);
        assert.ok(editedView?.kind === "live");
        await assert.rejects(store.reopenOperation(edited.operationId, editedView.operation.revision, 1, "resubmitted"), OperationTamperedError);
      }, false));

    test(`${backend}: breakers move only by compare-and-set on their revision, and a change of state is journaled`, () =>
      withStore(async (s) => {
        const other = s.another();
        try {
          const closed = await s.store.readBreaker("kernel");
          assert.deepEqual([closed.state, closed.revision], ["CLOSED", 0]);
          const open = { ...closed, state: "OPEN" as const, failures: 3, openUntilMs: 123 };
          const both = await Promise.all([s.store.writeBreaker(open, 0), other.writeBreaker({ ...open, failures: 4 }, 0)]);
          assert.deepEqual(both.filter(Boolean).length, 1, "exactly one writer wins revision 0");
          const now = await other.readBreaker("kernel");
          assert.deepEqual([now.state, now.revision], ["OPEN", 1]);
          assert.equal(await s.store.writeBreaker({ ...now, state: "HALF_OPEN" }, 0), false, "a stale revision is refused");
          assert.equal(await s.store.writeBreaker({ ...now, state: "HALF_OPEN", probeToken: "p" }, 1), true);
          assert.deepEqual(
            (await s.store.listBreakers()).map((b) => [b.provider, b.state, b.revision]),
            [["kernel", "HALF_OPEN", 2]],
          );
          const changes = (await s.store.readJournalEvents(0, 100)).filter((e) => e.type === "breaker_changed");
          assert.equal(changes.length, 2);
        } finally {
          await other.close();
        }
      }));

    test(`${backend}: lists and task documents read what was stored`, () =>
      withStore(async ({ store }, clock) => {
        const a = newOperation();
        const b = newOperation({ approvalTtlMs: 60_000 });
        await store.createOperation(a, QUOTA);
        clock.now += 1;
        await store.createOperation(b, QUOTA);
        assert.deepEqual(
          (await store.listOperations({ limit: 10 })).map((o) => o.operationId),
          [b.operationId, a.operationId],
          "newest change first",
        );
        assert.deepEqual(
          (await store.listOperations({ phase: "awaiting_approval", limit: 10 })).map((o) => o.operationId),
          [b.operationId],
        );
        // A runner reads in claim order: due first, then the oldest, so a bounded list starts where claims do.
        assert.deepEqual(
          (await store.listOperations({ limit: 10, order: "claim" })).map((o) => o.operationId),
          [a.operationId, b.operationId],
          "oldest first in claim order",
        );
        assert.deepEqual(
          (await store.listOperations({ limit: 1, order: "claim" })).map((o) => o.operationId),
          [a.operationId],
        );
        assert.equal((await store.readOperationTask(a.operationId))?.taskJson, a.taskJson);
        const states = await store.readOperationStates("", 10);
        assert.equal(states.length, 2);
        assert.ok(states.every((st) => st.latestEvent?.type === "operation_created"));
        assert.deepEqual(
          states.map((st) => st.operation.operationId),
          [a.operationId, b.operationId].sort(),
          "by id, byte order",
        );
      }));

    test(`${backend}: compaction leaves an authenticated tombstone that keeps the id taken`, () =>
      withStore(async ({ store }, clock) => {
        const input = newOperation();
        await store.createOperation(input, QUOTA);
        const claimed = await store.claimNext("r", LEASE_MS);
        assert.ok(claimed !== undefined);
        await store.finishAttempt(claimed.lease, finish());
        clock.now += 1_000;
        const report = await store.compact(clock.now);
        assert.equal(report.operations, 1);
        assert.equal((await store.readOperation(input.operationId))?.kind, "compacted");
        assert.equal((await store.createOperation(input, QUOTA)).kind, "compacted");
      }));
  });
}

// Tampering with per-operation chains and checkpoints, written once against the Store port and plain
// SQL both stores accept; test/journal/chainTamper.sqlite.test.ts and chainTamper.postgres.test.ts run
// it. The attacker has write access to the database and no key. Not a test file itself.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import type { JournalSealer } from "../../../src/journal/createJournalSealer.js";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import type { JournalVerdict } from "../../../src/journal/verifyJournal.js";
import { verifyJournal } from "../../../src/journal/verifyJournal.js";
import type { Store } from "../../../src/store/Store.js";
import { CheckpointRefusedError } from "../../../src/store/storeErrors.js";
import { finish, newOperation } from "./journalOperations.js";

/** One backend's store on a fresh database, and raw SQL on that database (as the attacker). */
export interface TamperTarget {
  store: Store;
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export type OpenTamperTarget = (options: { sealer: JournalSealer; clock: () => number }) => Promise<TamperTarget>;

const T0 = Date.UTC(2026, 0, 1);
const LEASE_MS = 60_000;
const QUOTA = 64 * 1024 * 1024;

/** A SQL literal both stores read back into the column's type. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `'${text.replaceAll("'", "''")}'`;
}

/** Creates, claims and finishes one operation: a chain of three events. */
async function runOne(store: Store): Promise<string> {
  const input = newOperation();
  await store.createOperation(input, QUOTA);
  const claimed = await store.claimNext("r", LEASE_MS, input.operationId);
  assert.ok(claimed !== undefined);
  await store.finishAttempt(claimed.lease, finish);
  return input.operationId;
}

/** Copies an operation's row and events, to put them back later: a rollback of that one operation. */
async function snapshot(t: TamperTarget, operationId: string): Promise<{ row: Record<string, unknown>[]; events: Record<string, unknown>[] }> {
  return {
    row: await t.rows(`SELECT * FROM operations WHERE operation_id = ${literal(operationId)}`),
    events: await t.rows(`SELECT * FROM journal_events WHERE operation_id = ${literal(operationId)}`),
  };
}

async function restore(t: TamperTarget, operationId: string, copy: { row: Record<string, unknown>[]; events: Record<string, unknown>[] }): Promise<void> {
  await t.exec(`DELETE FROM journal_events WHERE operation_id = ${literal(operationId)}`);
  await t.exec(`DELETE FROM operations WHERE operation_id = ${literal(operationId)}`);
  for (const [table, records] of [
    ["operations", copy.row],
    ["journal_events", copy.events],
  ] as const) {
    for (const record of records) {
      const columns = Object.keys(record);
      await t.exec(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => literal(record[c])).join(", ")})`);
    }
  }
}

function expectFault(verdict: JournalVerdict, fault: string, operationId?: string): void {
  assert.ok(!verdict.ok, `tampering must be detected (expected ${fault})`);
  assert.equal(verdict.fault, fault, verdict.message);
  if (operationId !== undefined) assert.equal(verdict.operationId, operationId, verdict.message);
}

export function chainTamperSuite(backend: string, open: OpenTamperTarget, options: { skip?: string } = {}): void {
  const sealer = createJournalSealer(randomBytes(32));

  async function withTarget(body: (t: TamperTarget) => Promise<void>): Promise<void> {
    let now = T0;
    const t = await open({
      sealer,
      clock: () => {
        now += 1;
        return now;
      },
    });
    try {
      await body(t);
    } finally {
      await t.close();
    }
  }

  const verify = (t: TamperTarget) => verifyJournal(t.store, sealer);
  const eventOf = async (t: TamperTarget, operationId: string, chainSeq: number) =>
    (await t.rows(`SELECT seq FROM journal_events WHERE operation_id = ${literal(operationId)} AND chain_seq = ${chainSeq}`))[0]?.["seq"];

  describe(`journal chains under tampering: ${backend}`, options.skip === undefined ? {} : { skip: options.skip }, () => {
    test(`${backend}: an untouched journal verifies chain by chain, and a checkpoint lists every operation`, () =>
      withTarget(async (t) => {
        const ids = [await runOne(t.store), await runOne(t.store)];
        await t.store.createOperation(newOperation(), QUOTA);
        const before = await verify(t);
        assert.ok(before.ok, JSON.stringify(before));
        assert.equal(before.operations, 3);
        assert.equal(before.events, 7, "3 + 3 + 1 operation events");
        assert.equal(await t.store.writeCheckpoint(), 3);
        const after = await verify(t);
        assert.ok(after.ok && after.checkpointed === 3, JSON.stringify(after));
        const head = await t.store.readJournalHead();
        assert.equal(head?.seq, 0, "operation events never touched the head's own chain");
        assert.ok(ids.length === 2);
      }));

    test(`${backend}: deleting the last event of one operation is detected (its row names a later end), and the runner refuses it`, () =>
      withTarget(async (t) => {
        const finished = await runOne(t.store);
        const queued = newOperation();
        await t.store.createOperation(queued, QUOTA);
        await t.exec(`DELETE FROM journal_events WHERE operation_id = ${literal(finished)} AND chain_seq = 3`);
        expectFault(await verify(t), "missing_event", finished);
        await t.exec(`DELETE FROM journal_events WHERE operation_id = ${literal(queued.operationId)}`);
        assert.equal(await t.store.claimNext("r", LEASE_MS), undefined, "an operation whose last event is gone is never claimed");
        assert.deepEqual(
          t.store.takeIntegrityRefusals().map((r) => r.operationId),
          [queued.operationId],
        );
      }));

    test(`${backend}: editing or deleting an event in the middle of a chain is detected at that event`, () =>
      withTarget(async (t) => {
        const id = await runOne(t.store);
        const middle = await eventOf(t, id, 2);
        await t.exec(`UPDATE journal_events SET at_ms = at_ms + 1 WHERE operation_id = ${literal(id)} AND chain_seq = 2`);
        const edited = await verify(t);
        expectFault(edited, "mac", id);
        assert.equal(String(edited.ok ? "" : edited.seq), String(middle));
        await t.exec(`UPDATE journal_events SET at_ms = at_ms - 1, body = replace(body, 'r', 'x') WHERE operation_id = ${literal(id)} AND chain_seq = 2`);
        expectFault(await verify(t), "body_hash", id);
        await t.exec(`DELETE FROM journal_events WHERE operation_id = ${literal(id)} AND chain_seq = 2`);
        expectFault(await verify(t), "missing_event", id);
      }));

    test(`${backend}: an event appended past the end a row names is detected as beyond its head`, () =>
      withTarget(async (t) => {
        const id = await runOne(t.store);
        await t.exec(
          `INSERT INTO journal_events (chain_seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac)
           SELECT 4, operation_id, type, at_ms, body, body_hash, mac, mac FROM journal_events WHERE operation_id = ${literal(id)} AND chain_seq = 3`,
        );
        expectFault(await verify(t), "beyond_head", id);
      }));

    test(`${backend}: deleting a whole operation (row and events) after a checkpoint is detected; before any checkpoint it is not`, () =>
      withTarget(async (t) => {
        const kept = await runOne(t.store);
        const listed = await runOne(t.store);
        await t.store.writeCheckpoint();
        const unlisted = await runOne(t.store);
        for (const id of [unlisted]) {
          await t.exec(`DELETE FROM journal_events WHERE operation_id = ${literal(id)}`);
          await t.exec(`DELETE FROM operations WHERE operation_id = ${literal(id)}`);
        }
        const between = await verify(t);
        assert.ok(between.ok, "an operation created and deleted between two checkpoints leaves no trace (docs/SECURITY.md)");
        await t.exec(`DELETE FROM journal_events WHERE operation_id = ${literal(listed)}`);
        await t.exec(`DELETE FROM operations WHERE operation_id = ${literal(listed)}`);
        expectFault(await verify(t), "missing_operation", listed);
        await assert.rejects(t.store.writeCheckpoint(), CheckpointRefusedError, "no checkpoint over a deleted operation");
        expectFault(await verify(t), "missing_operation", listed);
        assert.ok(kept.length > 0);
      }));

    test(`${backend}: deleting an operation's row but leaving its events is detected (events of no operation)`, () =>
      withTarget(async (t) => {
        const id = await runOne(t.store);
        await t.exec(`DELETE FROM operations WHERE operation_id = ${literal(id)}`);
        expectFault(await verify(t), "orphan_event");
      }));

    test(`${backend}: rolling back one operation's row and events together is detected when a checkpoint saw the later state, and not otherwise`, () =>
      withTarget(async (t) => {
        const input = newOperation();
        await t.store.createOperation(input, QUOTA);
        const id = input.operationId;
        const queued = await snapshot(t, id);
        const claimed = await t.store.claimNext("r", LEASE_MS, id);
        assert.ok(claimed !== undefined);
        await t.store.finishAttempt(claimed.lease, finish);

        // No checkpoint since it was queued: back to queued, row and events together, and it verifies
        // (and would run again). This is the gap between checkpoints that docs/SECURITY.md names.
        const finished = await snapshot(t, id);
        await restore(t, id, queued);
        const unseen = await verify(t);
        assert.ok(unseen.ok, "a rollback of one operation to a state after the last checkpoint is not detectable");
        await restore(t, id, finished);

        // A checkpoint saw it finished: the same rollback is now detected.
        await t.store.writeCheckpoint();
        await restore(t, id, queued);
        expectFault(await verify(t), "rolled_back", id);
        // A new checkpoint is never written over the regression (that would erase the evidence).
        await assert.rejects(t.store.writeCheckpoint(), CheckpointRefusedError);
        expectFault(await verify(t), "rolled_back", id);
      }));

    test(`${backend}: the checkpoint list and the head cannot be edited without the key`, () =>
      withTarget(async (t) => {
        await runOne(t.store);
        await runOne(t.store);
        await t.store.writeCheckpoint();
        await t.exec("DELETE FROM journal_checkpoint WHERE operation_id = (SELECT min(operation_id) FROM journal_checkpoint)");
        expectFault(await verify(t), "checkpoint");
        await assert.rejects(t.store.writeCheckpoint(), CheckpointRefusedError, "no checkpoint over an edited one");
        await t.exec("UPDATE journal_head SET checkpoint_operations = checkpoint_operations - 1");
        expectFault(await verify(t), "head_mac");
      }));

    test(`${backend}: the journal's own chain (operation-less events) keeps its head: a cut tail is detected`, () =>
      withTarget(async (t) => {
        for (let revision = 0; revision < 3; revision += 1) {
          const current = await t.store.readBreaker("p");
          assert.ok(await t.store.writeBreaker({ ...current, state: current.state === "OPEN" ? "CLOSED" : "OPEN", openUntilMs: null }, current.revision));
        }
        const fine = await verify(t);
        assert.ok(fine.ok && fine.headSeq === 3, JSON.stringify(fine));
        await t.exec("DELETE FROM journal_events WHERE operation_id IS NULL AND chain_seq = 3");
        expectFault(await verify(t), "missing_event");
      }));
  });
}

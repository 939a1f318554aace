// Shared pieces of the queue benchmark: the task and receipt used, the bare SQLite baseline (the same binding as the store),
// and opening errand's own service. Not run directly.
import { emptyNetworkEvidence } from "../../src/receipt/emptyNetworkEvidence.js";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import type { Receipt } from "../../src/receipt/receiptTypes.js";
import { createErrand } from "../../src/app/createErrand.js";

/** A realistic small read-only task (four steps). */
export function benchTask(operationId: string = randomUUID()): Record<string, unknown> {
  return {
    schemaVersion: "errand.task.v1",
    operationId,
    label: "bench",
    target: { url: "https://shop.example.com/orders/1234" },
    allowedHosts: ["shop.example.com"],
    risk: "read_only",
    steps: [
      { action: "wait_for", selector: "#order" },
      { action: "extract_text", selector: "#order .status", name: "status" },
      { action: "expect_text", text: "Shipped", selector: "#order .status" },
      { action: "expect_url", url: "https://shop.example.com/orders/", match: "prefix" },
    ],
  };
}

/** The receipt an instant executor returns: the same shape and roughly the size of a real one. */
export function benchReceipt(operationId: string, requestDigest: string, attempt: number): Receipt {
  return {
    receiptVersion: "errand.receipt.v1",
    status: "PASS",
    operationId,
    requestDigest,
    label: "bench",
    risk: "read_only",
    provider: "local",
    finalUrl: { untrusted: true, text: "https://shop.example.com/orders/1234" },
    checks: [
      { step: 2, action: "expect_text", expected: "Shipped", match: "contains", selector: "#order .status", passed: true },
      { step: 3, action: "expect_url", expected: "https://shop.example.com/orders/", match: "prefix", passed: true },
    ],
    steps: [0, 1, 2, 3].map((index) => ({
      index,
      action: ["wait_for", "extract_text", "expect_text", "expect_url"][index] ?? "",
      status: "ok",
      durationMs: 12,
    })),
    error: null,
    startedAt: new Date().toISOString(),
    durationMs: 180,
    attempts: attempt,
    network: {
      ...emptyNetworkEvidence(),
      preflight: [
        {
          url: "https://shop.example.com/orders/1234",
          host: "shop.example.com",
          verdict: "allow",
          code: "ok",
          resolver: "doh",
          addresses: [{ ip: "93.184.215.14", verdict: "public" }],
        },
      ],
    },
    mutationBoundary: "not_crossed",
    evidenceRetention: "minimal",
    fallback: [],
  };
}

/** An executor that returns at once: the benchmark measures the store path, not a browser. */
export const instantExecutor: ExecuteTask = (task, context) =>
  Promise.resolve({ receipt: benchReceipt(task.operationId, context.requestDigest, context.attempt), ephemeral: { ephemeral: true, outputs: {} } });

/** errand's operations service in `home` (SQLite), put together as every entry does (app/createErrand), running the instant executor. */
export function openErrand(home: string) {
  return benchErrand({ ERRAND_HOME: home }, "write");
}

/** createErrand with the instant executor; `store` is what the bench waits on and closes. */
export async function benchErrand(env: NodeJS.ProcessEnv, access: "write" | "setup") {
  const errand = await createErrand({
    env,
    access,
    executor: () => ({ execute: instantExecutor, shutdown: () => Promise.resolve() }),
    runnerId: `bench:${process.pid}`,
  });
  return { service: errand.service, store: { status: () => errand.service.status(), close: () => errand.close() } };
}

/**
 * The baseline: the same claim pattern as a bare SQLite loop on the store's binding, with the same durability
 * settings (WAL, synchronous=FULL, BEGIN IMMEDIATE): insert one job per transaction; claim the
 * oldest eligible job with UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING and a lease token;
 * complete it with an UPDATE fenced by that token, storing a receipt-sized result. `cycle` uses two
 * transactions per job; `fusedCycle` completes the previous job and claims the next in one, as
 * errand's runner does.
 */
export function openBare(dir: string) {
  const db = openSqliteDatabase(join(dir, "bare.db"), { timeout: 5000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(`CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, payload TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT, lease_token TEXT, lease_expires_ms INTEGER, run_after_ms INTEGER NOT NULL, created_ms INTEGER NOT NULL, result TEXT);
    CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (run_after_ms, created_ms) WHERE status = 'queued';`);
  const insert = db.prepare("INSERT INTO jobs (id, payload, status, run_after_ms, created_ms) VALUES (?, ?, 'queued', ?, ?)");
  const claim = db.prepare(
    `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = ?, lease_token = ?, lease_expires_ms = ?
     WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND run_after_ms <= ? ORDER BY run_after_ms, created_ms LIMIT 1)
     RETURNING id, payload`,
  );
  const complete = db.prepare("UPDATE jobs SET status = 'completed', result = ?, lease_token = NULL WHERE id = ? AND lease_token = ?");
  const claimOne = (owner: string, token: string) => claim.get(owner, token, Date.now() + 90_000, Date.now()) as { id: string; payload: string } | undefined;
  const fused = (previous: { id: string; token: string } | undefined, owner: string, token: string) => {
    if (previous !== undefined) complete.run(JSON.stringify(benchReceipt(previous.id, "hmac-sha256:x", 1)), previous.id, previous.token);
    return claimOne(owner, token);
  };
  let held: { id: string; token: string } | undefined;
  return {
    submit: (id: string, payload: string) => db.immediate(() => insert.run(id, payload, Date.now(), Date.now())),
    /** Claims and completes one job; false when none is left. */
    cycle(owner: string): boolean {
      const token = randomUUID();
      const job = db.immediate(() => claimOne(owner, token));
      if (job === undefined) return false;
      db.immediate(() => complete.run(JSON.stringify(benchReceipt(job.id, "hmac-sha256:x", 1)), job.id, token));
      return true;
    },
    /** Completes the job claimed last time and claims the next in one transaction; false when none is left. */
    fusedCycle(owner: string): boolean {
      const token = randomUUID();
      const job = db.immediate(() => fused(held, owner, token));
      held = job === undefined ? undefined : { id: job.id, token };
      return job !== undefined;
    },
    close: (): void => {
      db.close();
    },
  };
}

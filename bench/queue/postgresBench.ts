// The PostgreSQL side of the queue benchmark: errand on a PostgreSQL database, the bare
// FOR UPDATE SKIP LOCKED loop with the same durability, and graphile-worker on the same server.
// Each measure gets its own fresh database. Not run directly.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { benchErrand, benchReceipt } from "./benchSupport.js";

/** The server's admin database (CREATE/DROP DATABASE); ERRAND_BENCH_POSTGRES_URL overrides it. */
export const ADMIN_URL = process.env["ERRAND_BENCH_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database for one measure; drop() removes it. */
export async function freshBenchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `errand_i15_bench_${Date.now()}_${randomUUID().slice(0, 8)}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** errand's operations service on the PostgreSQL database `url` (the master key in `home`), put together as every entry does. */
export function openErrandPg(home: string, url: string) {
  return benchErrand({ ERRAND_HOME: home, ERRAND_DATABASE_URL: url }, "setup");
}

/**
 * The PostgreSQL baseline: a bare loop with the same claim pattern and durability as errand on
 * PostgreSQL (synchronous_commit on, the server's default; one transaction per job that completes
 * the previous job, fenced by its lease token, and claims the next with
 * UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED) RETURNING, leases on the database clock,
 * a receipt-sized result). No journal, no authentication, no task re-validation.
 */
export async function openBarePg(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query(`CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, payload TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT, lease_token TEXT, lease_expires_at TIMESTAMPTZ, run_after TIMESTAMPTZ NOT NULL, created_at TIMESTAMPTZ NOT NULL, result TEXT);
    CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (run_after, created_at) WHERE status = 'queued';`);
  const claim = `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = $1, lease_token = $2, lease_expires_at = now() + interval '90 seconds'
    WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND run_after <= now() ORDER BY run_after, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id, payload`;
  const complete = "UPDATE jobs SET status = 'completed', result = $1, lease_token = NULL WHERE id = $2 AND lease_token = $3";
  let held: { id: string; token: string } | undefined;
  return {
    submit: async (id: string, payload: string) => {
      await pool.query("INSERT INTO jobs (id, payload, status, run_after, created_at) VALUES ($1, $2, 'queued', now(), now())", [id, payload]);
    },
    /** Completes the job claimed last time and claims the next in one transaction; false when none is left. */
    async fusedCycle(owner: string): Promise<boolean> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        if (held !== undefined)
          await client.query({ name: "complete", text: complete, values: [JSON.stringify(benchReceipt(held.id, "hmac-sha256:x", 1)), held.id, held.token] });
        const token = randomUUID();
        const job = (await client.query<{ id: string }>({ name: "claim", text: claim, values: [owner, token] })).rows[0];
        await client.query("COMMIT");
        held = job === undefined ? undefined : { id: job.id, token };
        return job !== undefined;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Queues `count` jobs for graphile-worker (its schema installed first), one addJob each, as errand submits one by one. */
export async function submitGraphile(url: string, count: number): Promise<void> {
  const { makeWorkerUtils, Logger } = await import("graphile-worker");
  const utils = await makeWorkerUtils({ connectionString: url, logger: new Logger(() => () => undefined) });
  try {
    await utils.migrate();
    for (let i = 0; i < count; i += 1) await utils.addJob("bench", { operationId: randomUUID() });
  } finally {
    await utils.release();
  }
}

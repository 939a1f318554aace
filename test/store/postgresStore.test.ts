// What is particular to the PostgreSQL store: migrations under concurrency, refusing a newer schema,
// the database clock, and clear errors for a bad URL or a server that does not answer.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, describe, test } from "node:test";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import { openPostgresSecretStore } from "../../src/store/postgres/openPostgresSecretStore.js";
import { openPostgresStore } from "../../src/store/postgres/openPostgresStore.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "../../src/store/postgres/postgresMigrations.js";
import { SchemaTooNewError } from "../../src/store/storeErrors.js";
import { dropSchema, freshSchema, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { sampleReceipt } from "../support/sampleReceipt.js";

const database = await testDatabase();
const url = database.url ?? "";
const sealer = createJournalSealer(randomBytes(32));
const schemas: string[] = [];
const schema = () => {
  const name = freshSchema();
  schemas.push(name);
  return name;
};
after(async () => {
  if (database.skip === undefined) for (const name of schemas) await dropSchema(url, name);
});

function newOperation() {
  const operationId = randomUUID();
  return {
    operationId,
    requestDigest: `hmac-sha256:${randomBytes(32).toString("hex")}`,
    risk: "read_only" as const,
    maxAttempts: 2,
    taskJson: JSON.stringify({ operationId }),
    details: {},
  };
}

describe("PostgreSQL store", database.skip === undefined ? {} : { skip: database.skip }, () => {
  test("processes opening a fresh database at once apply each migration exactly once", async () => {
    const name = schema();
    const stores = Array.from({ length: 4 }, () => openPostgresStore({ connectionString: url, schema: name, sealer }));
    try {
      assert.deepEqual(
        await Promise.all(stores.map((s) => s.schemaVersion())),
        [1, 2, 3, 4].map(() => POSTGRES_SCHEMA_VERSION),
      );
      const recorded = await withSchemaClient(url, name, (c) => c.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version"));
      assert.deepEqual(
        recorded.rows.map((r) => r.version),
        POSTGRES_MIGRATIONS.map((m) => m.version),
      );
      const heads = await withSchemaClient(url, name, (c) => c.query("SELECT journal_id FROM journal_head"));
      assert.equal(heads.rowCount, 1, "one journal head");
    } finally {
      for (const s of stores) await s.close();
    }
  });

  test("a schema written by a newer errand is refused with store_schema_too_new before anything runs", async () => {
    const name = schema();
    const newer = openPostgresStore({
      connectionString: url,
      schema: name,
      sealer,
      migrations: [...POSTGRES_MIGRATIONS, { version: 99, name: "from the future", sql: "CREATE TABLE future (x int)" }],
    });
    assert.equal(await newer.schemaVersion(), 99);
    await newer.close();
    const older = openPostgresStore({ connectionString: url, schema: name, sealer });
    try {
      await assert.rejects(
        older.createOperation(newOperation(), 1 << 20),
        (error: unknown) => error instanceof SchemaTooNewError && error.code === "store_schema_too_new" && /version 99/.test(error.message),
      );
    } finally {
      await older.close();
    }
  });

  test("two cancels racing with one control id on different operations: one is applied, the other is answered control_id_reused (no raw key violation)", async () => {
    const name = schema();
    const first = openPostgresStore({ connectionString: url, schema: name, sealer });
    const second = openPostgresStore({ connectionString: url, schema: name, sealer });
    try {
      const cancelled = (op: { operationId: string; requestDigest: string }) =>
        sampleReceipt({ status: "CANCELLED", operationId: op.operationId, requestDigest: op.requestDigest });
      for (let round = 0; round < 8; round += 1) {
        const a = newOperation();
        const b = newOperation();
        await first.createOperation(a, 1 << 20);
        await first.createOperation(b, 1 << 20);
        const id = randomUUID();
        const results = await Promise.all([first.cancelOperation(a.operationId, id, cancelled), second.cancelOperation(b.operationId, id, cancelled)]);
        const kinds = results.map((r) => r.kind).sort();
        assert.deepEqual(kinds, ["applied", "control_id_reused"], JSON.stringify(results));
        const loser = results[0]?.kind === "control_id_reused" ? a : b;
        const view = await first.readOperation(loser.operationId);
        assert.ok(view?.kind === "live" && view.operation.phase === "queued", "the refused cancel changed nothing");
      }
      assert.ok((await verifyJournal(first, sealer)).ok);
    } finally {
      await first.close();
      await second.close();
    }
  });

  test("leases and retry delays are timed on the database's clock", async () => {
    const name = schema();
    const store = openPostgresStore({ connectionString: url, schema: name, sealer });
    try {
      const dbNow = await withSchemaClient(url, undefined, async (c) =>
        Number((await c.query<{ now: string }>("SELECT (extract(epoch FROM now()) * 1000)::bigint AS now")).rows[0]?.now),
      );
      const storeNow = await store.now();
      assert.ok(Math.abs(storeNow - dbNow) < 5_000, `store clock ${storeNow} vs database ${dbNow}`);
      await store.createOperation(newOperation(), 1 << 20);
      const claimed = await store.claimNext("r", 60_000);
      assert.ok(claimed !== undefined);
      const leaseEnd = claimed.operation.leaseExpiresMs ?? 0;
      const after = await store.now();
      assert.ok(leaseEnd > after + 50_000 && leaseEnd <= after + 60_000, "the lease ends leaseMs after the claim, on the database clock");
    } finally {
      await store.close();
    }
  });

  test("a bad URL and a server that does not answer are reported naming ERRAND_DATABASE_URL, never the password", async () => {
    assert.throws(
      () => openPostgresStore({ connectionString: "mysql://x@y/z", sealer }),
      (e: unknown) => e instanceof Error && (e as { code?: string }).code === "configuration_error" && /ERRAND_DATABASE_URL/.test(e.message),
    );
    assert.throws(() => openPostgresStore({ connectionString: "postgres://u@127.0.0.1:5432", sealer }), /names no database/);
    const nobody = openPostgresStore({ connectionString: "postgres://errand:hunter2secret@127.0.0.1:1/errand", sealer });
    try {
      await assert.rejects(nobody.status(), (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.equal((e as { code?: string }).code, "store_unavailable");
        assert.match(e.message, /ERRAND_DATABASE_URL/);
        assert.match(e.message, /127\.0\.0\.1:1\/errand/);
        assert.doesNotMatch(e.message, /hunter2/);
        return true;
      });
    } finally {
      await nobody.close();
    }
  });

  test("declared secrets: only the sealed payload is stored, changes are journaled and the journal verifies", async () => {
    const name = schema();
    const store = openPostgresStore({ connectionString: url, schema: name, sealer });
    const secrets = openPostgresSecretStore({ connectionString: url, schema: name, sealer });
    try {
      const first = await secrets.putSecret({ name: "SHOP_PASSWORD", sites: ["https://shop.example"], sourceKind: "stored", sealed: "sealed-payload" });
      assert.equal(first.created, true);
      const again = await secrets.putSecret({
        name: "SHOP_PASSWORD",
        sites: ["https://shop.example", "https://*.shop.example"],
        sourceKind: "stored",
        sealed: "sealed-payload-2",
      });
      assert.deepEqual([again.created, again.record.sites.length, again.record.sealed], [false, 2, "sealed-payload-2"]);
      assert.deepEqual(
        (await secrets.listSecrets()).map((r) => r.name),
        ["SHOP_PASSWORD"],
      );
      assert.equal(await secrets.deleteSecret("SHOP_PASSWORD"), true);
      assert.equal(await secrets.deleteSecret("SHOP_PASSWORD"), false);
      assert.equal(await secrets.readSecret("SHOP_PASSWORD"), null);
      const changes = (await store.readJournalEvents(0, 10))
        .filter((e) => e.type === "secret_changed")
        .map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change);
      assert.deepEqual(changes, ["created", "updated", "deleted"]);
      assert.ok(
        (await store.readJournalEvents(0, 10)).every((e) => !(e.body ?? "").includes("sealed-payload")),
        "no payload in the journal",
      );
      assert.ok((await verifyJournal(store, sealer)).ok);
    } finally {
      await secrets.close();
      await store.close();
    }
  });
});

// Artifacts (evidence screenshots) kept by the operations service over the artifact store (SQLite
// and PostgreSQL, the same tests on each):
// sealed at rest, read back only when the bytes hash to what the authenticated receipt records,
// bounded per operation, kept for ERRAND_RESULT_TTL with evidenceRetention minimal and until
// journal compaction with full, and deleted by both.
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { after, describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { DAY } from "../../src/config/units.js";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { ARTIFACT_LIMITS } from "../../src/receipt/artifactTypes.js";
import type { ArtifactBytes } from "../../src/receipt/artifactTypes.js";
import { ArtifactRefusedError } from "../../src/store/storeErrors.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { manualClock, openHarness } from "./support/harness.js";
import type { Harness } from "./support/harness.js";
import { dropSchemas, freshPostgresLocation, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { readTask } from "./support/tasks.js";

/** A PNG-looking image that differs per operation and attempt. */
function image(operationId: string, attempt: number, size = 2_000): Buffer {
  const bytes = Buffer.alloc(size, attempt);
  Buffer.from(`\x89PNG\r\n\x1a\n${operationId}`).copy(bytes);
  return bytes;
}

function artifact(index: number, data: Buffer): ArtifactBytes {
  return {
    index,
    kind: "screenshot",
    moment: "final",
    mediaType: "image/png",
    bytes: data.length,
    sha256: createHash("sha256").update(data).digest("hex"),
    data,
  };
}

/** The fake executor, plus one screenshot per attempt when the task asks (count/size set by the label). */
function screenshotExecutor(): ExecuteTask {
  const fake = createFakeExecutor();
  return async (task, context) => {
    const outcome = await fake.execute(task, context);
    if (task.evidence === undefined) return outcome;
    const count = task.label === "too-many" ? ARTIFACT_LIMITS.operationCount + 1 : 1;
    const artifacts = Array.from({ length: count }, (_, index) => artifact(index, image(task.operationId, context.attempt)));
    const records = artifacts.map(({ data: _data, ...record }) => record);
    return { ...outcome, receipt: { ...outcome.receipt, artifacts: records }, artifacts };
  };
}

const withScreenshot = (id: string, extra: Record<string, unknown> = {}, label?: string) =>
  readTask(id, label, { evidence: { screenshots: "final" }, ...extra });

/** Runs SQL on the store's database as someone with access but no key ("?" placeholders; SQLite file or PostgreSQL schema); returns the rows. */
async function sqlRows(h: Harness, sql: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
  if (h.location.backend === "postgres") {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${(n += 1)}`);
    return (await withSchemaClient(h.location.url, h.location.schema, (client) => client.query<Record<string, unknown>>(text, params))).rows;
  }
  const db = openSqliteDatabase(h.dbPath);
  try {
    const statement = db.prepare(sql);
    if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
    statement.run(...params);
    return [];
  } finally {
    db.close();
  }
}

const editRows = async (h: Harness, sql: string, ...params: unknown[]): Promise<void> => void (await sqlRows(h, sql, ...params));

const database = await testDatabase();
const schemas: string[] = [];
after(() => (database.url === undefined ? undefined : dropSchemas(database.url, schemas)));

for (const backend of ["sqlite", "postgres"] as const) {
  const skip = backend === "postgres" ? database.skip : undefined;
  const where = () => (backend === "postgres" && database.url !== undefined ? { location: freshPostgresLocation(database.url, schemas) } : {});
  describe(`artifacts (${backend})`, skip === undefined ? {} : { skip }, () => {
    test("a screenshot is kept sealed and read back with the receipt's hash and size; bad indexes and ids are clear", async () => {
      const h = await openHarness({ execute: screenshotExecutor(), ...where() });
      try {
        const id = randomUUID();
        await h.service.submit(withScreenshot(id));
        await h.service.runQueue();
        const collected = await h.service.collect(id);
        assert.ok(collected.ok && collected.receipt !== undefined);
        const record = collected.receipt.artifacts?.[0];
        assert.ok(record !== undefined);
        const read = await h.service.readArtifact(id, 0);
        assert.ok(read.ok, JSON.stringify(read));
        assert.deepEqual(read.data, image(id, 1));
        assert.equal(createHash("sha256").update(read.data).digest("hex"), record.sha256);
        assert.equal(read.artifact.bytes, read.data.length);

        const row = (await sqlRows(h, "SELECT sealed, bytes, sha256 FROM artifacts WHERE operation_id = ?", id))[0] as {
          sealed: string;
          bytes: number;
          sha256: string;
        };
        assert.match(row.sealed, /^aead1\./, "the bytes are sealed at rest");
        assert.ok(!Buffer.from(row.sealed).includes(image(id, 1).subarray(0, 100)), "the image is not in the clear");
        assert.equal(row.sha256, record.sha256);

        const missing = await h.service.readArtifact(id, 1);
        assert.ok(!missing.ok && missing.code === "artifact_not_found" && /lists artifacts 0 to 0/.test(missing.message), JSON.stringify(missing));
        const negative = await h.service.readArtifact(id, -1);
        assert.ok(!negative.ok && negative.code === "invalid_number");
        const unknown = await h.service.readArtifact(randomUUID(), 0);
        assert.ok(!unknown.ok && unknown.code === "operation_not_found");
        const plain = randomUUID();
        await h.service.submit(readTask(plain));
        const pending = await h.service.readArtifact(plain, 0);
        assert.ok(!pending.ok && pending.code === "artifact_not_found" && /no receipt yet/.test(pending.message));
      } finally {
        await h.close();
      }
    });

    test("bytes moved to another operation's row do not open (artifact_mismatch)", async () => {
      const h = await openHarness({ execute: screenshotExecutor(), ...where() });
      try {
        const [a, b] = [randomUUID(), randomUUID()];
        for (const id of [a, b]) await h.service.submit(withScreenshot(id));
        await h.service.runQueue();
        await editRows(h, "UPDATE artifacts SET sealed = (SELECT sealed FROM artifacts WHERE operation_id = ?) WHERE operation_id = ?", a, b);
        const moved = await h.service.readArtifact(b, 0);
        assert.ok(!moved.ok && moved.code === "artifact_mismatch", JSON.stringify(moved));
        assert.ok((await h.service.readArtifact(a, 0)).ok);
      } finally {
        await h.close();
      }
    });

    test("evidenceRetention minimal: gone after ERRAND_RESULT_TTL, and housekeeping deletes the row", async () => {
      const clock = manualClock();
      const h = await openHarness({ execute: screenshotExecutor(), clock: clock.now, ...where() });
      try {
        const id = randomUUID();
        await h.service.submit(withScreenshot(id));
        await h.service.runQueue();
        assert.ok((await h.service.readArtifact(id, 0)).ok);
        clock.advance(h.config.resultTtlMs + 1);
        const expired = await h.service.readArtifact(id, 0);
        assert.ok(!expired.ok && expired.code === "artifact_not_found" && /ERRAND_RESULT_TTL/.test(expired.message), JSON.stringify(expired));
        assert.equal(await h.artifactStore!.dropExpiredArtifacts(), 1);
        assert.equal(await h.artifactStore!.readArtifact(id, 0), undefined);
      } finally {
        await h.close();
      }
    });

    test("evidenceRetention full: kept past the TTL until journal compaction deletes it with the operation", async () => {
      const clock = manualClock();
      const h = await openHarness({ execute: screenshotExecutor(), clock: clock.now, ...where() });
      try {
        const id = randomUUID();
        await h.service.submit(withScreenshot(id, { evidenceRetention: "full" }));
        await h.service.runQueue();
        clock.advance(2 * DAY);
        assert.equal(await h.artifactStore!.dropExpiredArtifacts(), 0, "a full-retention artifact does not expire");
        assert.ok((await h.service.readArtifact(id, 0)).ok);
        const report = await h.service.compactJournal({ olderThanMs: DAY });
        assert.ok(report.ok && report.operations === 1 && report.artifactsDeleted === 1, JSON.stringify(report));
        const gone = await h.service.readArtifact(id, 0);
        assert.ok(!gone.ok && gone.code === "artifact_not_found" && /compacted/.test(gone.message));
        assert.equal(Number((await sqlRows(h, "SELECT count(*) AS n FROM artifacts"))[0]?.["n"]), 0);
      } finally {
        await h.close();
      }
    });

    test("the store refuses an unknown operation and batches over the per-operation caps; the runner notes it in the receipt", async () => {
      const h = await openHarness({ execute: screenshotExecutor(), ...where() });
      try {
        const sealed = "aead1.x";
        await assert.rejects(
          h.artifactStore!.putArtifacts({
            operationId: randomUUID(),
            attempt: 1,
            expiresMs: null,
            artifacts: [{ index: 0, mediaType: "image/png", bytes: 1, sha256: "0".repeat(64), sealed }],
          }),
          ArtifactRefusedError,
        );
        const id = randomUUID();
        await h.service.submit(withScreenshot(id));
        const big = Array.from({ length: 3 }, (_, index) => ({
          index,
          mediaType: "application/pdf" as const,
          bytes: Math.ceil(ARTIFACT_LIMITS.operationBytes / 3) + 1,
          sha256: "0".repeat(64),
          sealed,
        }));
        await assert.rejects(
          h.artifactStore!.putArtifacts({ operationId: id, attempt: 1, expiresMs: null, artifacts: big }),
          new RegExp(`at most ${ARTIFACT_LIMITS.operationBytes} are kept per operation`),
        );

        const many = randomUUID();
        await h.service.submit(withScreenshot(many, {}, "too-many"));
        await h.service.runQueue();
        const collected = await h.service.collect(many);
        assert.ok(collected.ok && collected.receipt !== undefined);
        assert.match(
          collected.receipt.artifactsOmitted ?? "",
          new RegExp(`could not be kept: ${ARTIFACT_LIMITS.operationCount + 1} artifacts .* at most ${ARTIFACT_LIMITS.operationCount}`),
        );
        assert.ok(h.events.some((e) => e.kind === "store_error" && e.operationId === many));
        const read = await h.service.readArtifact(many, 0);
        assert.ok(!read.ok && read.code === "artifact_not_found");
      } finally {
        await h.close();
      }
    });
  });
}

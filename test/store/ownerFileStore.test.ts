// The owner's upload files (errand file add) on both stores, through src/files as the CLI and the
// executor use them: add, replace, list without the bytes, read back byte for byte, remove; the row
// holds the bytes only sealed (a canary in the file is not in the row), a sealed value moved to
// another name does not open, and refusals (bad name, over the limit) store nothing.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, describe, test } from "node:test";
import { openFileStoreAt } from "../../src/app/openStores.js";
import { createOwnerFiles, OWNER_FILE_MAX_BYTES, OwnerFileError } from "../../src/files/createOwnerFiles.js";
import { deriveSubkey } from "../../src/keys/loadKey.js";
import { createSealedBox } from "../../src/keys/sealedBox.js";
import { openHarness } from "../operations/support/harness.js";
import { dropSchemas, freshPostgresLocation, testDatabase } from "../fixtures/testPostgres.js";

const CANARY = "Owner-File-Canary-7713";
const database = await testDatabase();
const schemas: string[] = [];
after(() => (database.url === undefined ? undefined : dropSchemas(database.url, schemas)));

for (const backend of ["sqlite", "postgres"] as const) {
  const skip = backend === "postgres" ? database.skip : undefined;
  const where = () => (backend === "postgres" && database.url !== undefined ? { location: freshPostgresLocation(database.url, schemas) } : {});
  describe(`owner files (${backend})`, skip === undefined ? {} : { skip }, () => {
    test("add, replace, list without bytes, read back byte for byte, remove; the row holds only sealed bytes", async () => {
      const h = await openHarness(where());
      const store = openFileStoreAt(h.location, { sealer: h.sealer });
      const other = openFileStoreAt(h.location, { sealer: h.sealer });
      try {
        const files = createOwnerFiles(store, createSealedBox(deriveSubkey(h.key, "owner-files")));
        const data = Buffer.from(`%PDF-1.4 ${CANARY} \u0000\u00ff binary tail`, "latin1");
        const added = await files.add("resume.pdf", data);
        assert.deepEqual(added, { created: true, info: { name: "resume.pdf", bytes: data.length, sha256: createHash("sha256").update(data).digest("hex") } });
        await files.add("a-note.txt", Buffer.from("first"));
        const replaced = await files.add("a-note.txt", Buffer.from("second version"));
        assert.equal(replaced.created, false);

        // Another connection (another runner on the same database) sees them.
        const seen = createOwnerFiles(other, createSealedBox(deriveSubkey(h.key, "owner-files")));
        const listed = await seen.list();
        assert.deepEqual(
          listed.map((f) => [f.name, f.bytes]),
          [
            ["a-note.txt", 14],
            ["resume.pdf", data.length],
          ],
        );
        for (const f of listed) {
          assert.deepEqual(Object.keys(f).sort(), ["bytes", "createdMs", "name", "sha256"]);
          assert.equal(typeof f.bytes, "number");
          assert.equal(typeof f.createdMs, "number");
        }
        assert.ok(!JSON.stringify(listed).includes(CANARY));
        assert.deepEqual(await seen.read("resume.pdf"), data);
        assert.equal((await seen.read("a-note.txt")).toString(), "second version");
        assert.equal(await seen.has("resume.pdf"), true);

        // The row keeps the bytes sealed: the canary is not in it, and the sealed value under another name does not open.
        const row = await store.readFile("resume.pdf");
        assert.ok(
          row !== null &&
            row.sealed.startsWith("aead1.") &&
            !row.sealed.includes(CANARY) &&
            !Buffer.from(row.sealed, "base64url").toString("latin1").includes(CANARY),
        );
        await store.putFile({ name: "moved.pdf", bytes: row.bytes, sha256: row.sha256, sealed: row.sealed });
        await assert.rejects(seen.read("moved.pdf"), (e: unknown) => e instanceof OwnerFileError && e.code === "file_unreadable");
        // Under another key it does not open either.
        const wrongKey = createOwnerFiles(other, createSealedBox(deriveSubkey(h.key, "secrets")));
        await assert.rejects(wrongKey.read("resume.pdf"), (e: unknown) => e instanceof OwnerFileError && e.code === "file_unreadable");

        assert.equal(await files.remove("resume.pdf"), true);
        assert.equal(await files.remove("resume.pdf"), false);
        assert.equal(await seen.has("resume.pdf"), false);
        await assert.rejects(seen.read("resume.pdf"), (e: unknown) => e instanceof OwnerFileError && e.code === "file_unknown");
      } finally {
        await store.close();
        await other.close();
        await h.close();
      }
    });

    test("a bad name or a file over the limit is refused with its code and nothing is stored", async () => {
      const h = await openHarness(where());
      const store = openFileStoreAt(h.location, { sealer: h.sealer });
      try {
        const files = createOwnerFiles(store, createSealedBox(deriveSubkey(h.key, "owner-files")));
        for (const name of ["../x", "/abs", "a\u0000b", "a\\b", "a/b", "..", ""]) {
          await assert.rejects(
            files.add(name, Buffer.from(CANARY)),
            (e: unknown) => e instanceof OwnerFileError && e.code === "invalid_file_name",
            JSON.stringify(name),
          );
        }
        await assert.rejects(
          files.add("big.bin", Buffer.alloc(OWNER_FILE_MAX_BYTES + 1)),
          (e: unknown) => e instanceof OwnerFileError && e.code === "file_too_large",
        );
        assert.deepEqual(await files.list(), []);
        // Exactly the limit is kept.
        await files.add("edge.bin", Buffer.alloc(OWNER_FILE_MAX_BYTES, 7));
        assert.equal((await files.read("edge.bin")).length, OWNER_FILE_MAX_BYTES);
      } finally {
        await store.close();
        await h.close();
      }
    });
  });
}

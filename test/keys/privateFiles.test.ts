// File modes at rest: ERRAND_HOME 0700 and keys/ 0700 even when they existed with looser modes;
// the database, its WAL and SHM files and the master key 0600.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { loadOrCreateMasterKey } from "../../src/keys/loadKey.js";
import { openHarness } from "../operations/support/harness.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-modes-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe("private files", () => {
  test("ERRAND_HOME that already existed as 0755 is made 0700, and the key file 0600", () => {
    const home = join(scratch, "pre-existing");
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    loadOrCreateMasterKey(home);
    assert.equal(mode(home), 0o700);
    assert.equal(mode(join(home, "keys")), 0o700);
    assert.equal(mode(join(home, "keys", "master.key")), 0o600);
  });

  test("a key file and keys directory left world-readable are tightened", () => {
    const home = join(scratch, "loose-key");
    loadOrCreateMasterKey(home);
    chmodSync(join(home, "keys"), 0o755);
    chmodSync(join(home, "keys", "master.key"), 0o644);
    loadOrCreateMasterKey(home);
    assert.equal(mode(join(home, "keys")), 0o700);
    assert.equal(mode(join(home, "keys", "master.key")), 0o600);
  });

  test("errand.db and its -wal and -shm files are 0600, also when an older run left them 0644", async () => {
    const home = join(scratch, "db");
    mkdirSync(home, { mode: 0o755 });
    writeFileSync(join(home, "errand.db-wal"), "");
    chmodSync(join(home, "errand.db-wal"), 0o644);
    const h = await openHarness({ home });
    try {
      await h.store.now();
      const files = readdirSync(home).filter((f) => f.startsWith("errand.db"));
      assert.ok(files.includes("errand.db-wal") && files.includes("errand.db-shm"), files.join(","));
      for (const file of files) assert.equal(mode(join(home, file)), 0o600, file);
      assert.equal(mode(home), 0o700);
    } finally {
      await h.close();
    }
  });

  test("an ERRAND_HOME that is a file is refused with a clear message", () => {
    const file = join(scratch, "not-a-dir");
    writeFileSync(file, "x");
    assert.throws(() => loadOrCreateMasterKey(file), /not a directory|Cannot create/);
  });
});

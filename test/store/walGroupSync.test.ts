import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openDatabaseFile } from "../../src/store/sqlite/openDatabaseFile.js";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { GroupSync, useWalGroupSync } from "../../src/store/sqlite/walGroupSync.js";

/** A sync the test finishes by hand, counting how often it was started. */
function manualSync() {
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  return {
    started: () => pending.length,
    sync: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
    finish: (index: number) => pending[index]?.resolve(),
    fail: (index: number, error: Error) => pending[index]?.reject(error),
  };
}

function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("WAL group sync", () => {
  const dir = mkdtempSync(join(tmpdir(), "errand-walsync-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a commit is durable only once a sync started after it has finished; commits waiting together share the next sync", async () => {
    const disk = manualSync();
    const group = new GroupSync(disk.sync);
    await group.durable(); // nothing committed: nothing to sync
    assert.equal(disk.started(), 0);

    group.committed();
    const first = settled(group.durable());
    assert.equal(disk.started(), 1);
    group.committed();
    group.committed();
    const second = settled(group.durable());
    const third = settled(group.durable());
    await turn();
    assert.equal(disk.started(), 1, "a sync already running may have started before these commits: they wait for the next");
    assert.deepEqual([first(), second(), third()], [false, false, false]);

    disk.finish(0);
    await turn();
    assert.deepEqual([first(), second(), third()], [true, false, false]);
    assert.equal(disk.started(), 2, "the two later commits share one sync");
    disk.finish(1);
    await turn();
    assert.deepEqual([second(), third()], [true, true]);
    await group.durable();
    assert.equal(disk.started(), 2);
  });

  it("a failed sync rejects whoever waits on it, and the next wait syncs again", async () => {
    const disk = manualSync();
    const group = new GroupSync(disk.sync);
    group.committed();
    const waiting = group.durable();
    disk.fail(0, new Error("EIO"));
    await assert.rejects(waiting, /EIO/);
    const again = settled(group.durable());
    assert.equal(disk.started(), 2);
    disk.finish(1);
    await turn();
    assert.equal(again(), true);
  });

  it("a store connection in WAL mode commits with synchronous=NORMAL and shares its file's sync with every other connection to it", async () => {
    const path = join(dir, "wal.db");
    const one = openDatabaseFile(path, 1000);
    const two = openDatabaseFile(path, 1000);
    assert.equal(one.pragma("synchronous", { simple: true }), 2, "opened (and migrated) with FULL");
    const sync = useWalGroupSync(one);
    assert.equal(one.pragma("synchronous", { simple: true }), 1);
    assert.equal(useWalGroupSync(two), sync);
    one.exec("CREATE TABLE t (v TEXT)");
    one.prepare("INSERT INTO t (v) VALUES (?)").run("x");
    sync.committed();
    await sync.durable(); // a real fsync of errand's WAL file
    one.close();
    two.close();
  });

  it("a connection not in WAL mode keeps synchronous=FULL and has nothing to wait for", async () => {
    const db = openSqliteDatabase(join(dir, "rollback.db"));
    db.pragma("journal_mode = DELETE");
    db.pragma("synchronous = FULL");
    const sync = useWalGroupSync(db);
    assert.equal(db.pragma("synchronous", { simple: true }), 2);
    sync.committed();
    await sync.durable();
    db.close();
  });
});

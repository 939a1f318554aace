import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";

// The store relies on these properties of its SQLite binding; the binding file makes them hold
// whatever the native package does underneath.
describe("SQLite binding", () => {
  const dir = mkdtempSync(join(tmpdir(), "errand-binding-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const fresh = () => {
    const path = join(dir, `db${(n += 1)}.db`);
    const db = openSqliteDatabase(path);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, b BLOB)");
    return { db, path };
  };

  it("binds a lone null or Buffer as one positional value, and refuses a value SQLite cannot bind with a TypeError", () => {
    const { db } = fresh();
    db.prepare("INSERT INTO t (v) VALUES (?)").run(null);
    db.prepare("INSERT INTO t (b) VALUES (?)").run(Buffer.from("hi"));
    db.prepare("INSERT INTO t (b) VALUES (?)").run(new Uint8Array([1, 2]));
    assert.throws(() => db.prepare("INSERT INTO t (v) VALUES (?)").run(true), TypeError);
    assert.throws(() => db.prepare("INSERT INTO t (v) VALUES (?)").run(undefined), TypeError);
    assert.throws(() => db.prepare("INSERT INTO t (v) VALUES (@v)").run({ v: { nested: 1 } }), TypeError);
    assert.deepEqual(db.prepare("SELECT count(*) AS n FROM t").get(), { n: 3 });
    db.close();
  });

  it("returns rows as plain column objects, BLOBs as Buffers from get and all alike", () => {
    const { db } = fresh();
    db.prepare("INSERT INTO t (v, b) VALUES (@v, @b)").run({ v: "x", b: Buffer.from([7, 8]) });
    const one = db.prepare<[number], { id: number; v: string; b: Buffer }>("SELECT id, v, b FROM t WHERE id = ?").get(1);
    const all = db.prepare<[], { id: number; v: string; b: Buffer }>("SELECT id, v, b FROM t").all();
    assert.deepEqual(Object.keys(one ?? {}), ["id", "v", "b"]);
    assert.ok(Buffer.isBuffer(one?.b) && Buffer.isBuffer(all[0]?.b));
    assert.deepEqual(all, [one]);
    assert.equal(db.prepare("SELECT 1 WHERE 0").get(), undefined);
    assert.equal(db.pragma("quick_check", { simple: true }), "ok");
    db.close();
  });

  it("a read-only connection refuses writes and a must-exist open does not create the file", () => {
    const { db, path } = fresh();
    db.close();
    const ro = openSqliteDatabase(path, { readonly: true, fileMustExist: true });
    assert.throws(() => ro.prepare("INSERT INTO t (v) VALUES ('no')").run(), /readonly/);
    ro.close();
    const missing = join(dir, "missing.db");
    assert.throws(() => openSqliteDatabase(missing, { readonly: true, fileMustExist: true }), /does not exist/);
    assert.equal(existsSync(missing), false);
  });

  it("a nested transaction is a savepoint: its failure rolls back only its own writes", () => {
    const { db } = fresh();
    db.immediate(() => {
      db.prepare("INSERT INTO t (v) VALUES ('outer')").run();
      assert.throws(() =>
        db.immediate(() => {
          db.prepare("INSERT INTO t (v) VALUES ('inner')").run();
          throw new Error("inner fails");
        }),
      );
    });
    assert.deepEqual(db.prepare("SELECT v FROM t").all(), [{ v: "outer" }]);
    assert.throws(() => db.immediate(() => db.prepare("INSERT INTO t (v) VALUES (?)").run(true)), TypeError);
    assert.deepEqual(db.prepare("SELECT count(*) AS n FROM t").get(), { n: 1 });
    db.close();
    assert.equal(db.open, false);
  });

  it("a backup from a read-only connection is a complete copy and leaves the connection read-only", async () => {
    const { db, path } = fresh();
    db.prepare("INSERT INTO t (v) VALUES ('kept')").run();
    db.close();
    const ro = openSqliteDatabase(path, { readonly: true, fileMustExist: true });
    const copy = join(dir, "copy.db");
    await ro.backup(copy);
    assert.throws(() => ro.prepare("INSERT INTO t (v) VALUES ('no')").run(), /readonly/);
    ro.close();
    const restored = openSqliteDatabase(copy, { readonly: true, fileMustExist: true });
    assert.deepEqual(restored.prepare("SELECT v FROM t").all(), [{ v: "kept" }]);
    restored.close();
  });
});

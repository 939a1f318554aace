// Pre-migration copies of errand.db are pruned to the newest ERRAND_KEEP_MIGRATION_BACKUPS (default
// 3): the copy a migration has just made always stays, and no file errand did not name that way is
// touched.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { openOperationStore } from "../../src/app/openStores.js";
import { storeLocationFor } from "../../src/app/storeLocation.js";
import { resolveRuntimeConfig } from "../../src/config/runtimeConfig.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import { deriveSubkey, loadOrCreateMasterKey } from "../../src/keys/loadKey.js";
import { migrate } from "../../src/store/sqlite/migrate.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { DEFAULT_KEEP_MIGRATION_BACKUPS, pruneMigrationBackups } from "../../src/store/sqlite/sqliteBackup.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-bak-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let homes = 0;
const fresh = (): string => {
  homes += 1;
  return mkdtempSync(join(scratch, `home${homes}-`));
};
const backups = (home: string): string[] =>
  readdirSync(home)
    .filter((f) => f.endsWith(".bak"))
    .sort();

/** Migrates a database at `path` up to each of the last `steps` schema versions in turn, as successive upgrades would. */
function upgradeInSteps(path: string, steps: number, keep?: number): void {
  const db = openSqliteDatabase(path);
  try {
    migrate(db, MIGRATIONS.slice(0, -steps), path);
    for (let left = steps - 1; left >= 0; left -= 1) migrate(db, left === 0 ? MIGRATIONS : MIGRATIONS.slice(0, -left), path, undefined, keep);
  } finally {
    db.close();
  }
}

describe("pre-migration copies", () => {
  test("the default keeps 3: after five upgrades the three newest copies are left, the last one made among them", () => {
    assert.equal(DEFAULT_KEEP_MIGRATION_BACKUPS, 3);
    const home = fresh();
    const path = join(home, "errand.db");
    upgradeInSteps(path, 5);
    const left = backups(home);
    assert.equal(left.length, 3, left.join(", "));
    const versions = left.map((f) => Number(/pre-v(\d+)-/.exec(f)?.[1])).sort((a, b) => a - b);
    const top = MIGRATIONS.length;
    assert.deepEqual(versions, [top - 2, top - 1, top], "the copies before the three latest migrations");
    for (const f of left) assert.equal(statSync(join(home, f)).mode & 0o777, 0o600);
  });

  test("keep 1 leaves only the copy just made", () => {
    const home = fresh();
    const path = join(home, "errand.db");
    upgradeInSteps(path, 3, 1);
    assert.deepEqual(
      backups(home).map((f) => /pre-v(\d+)-/.exec(f)?.[1]),
      [String(MIGRATIONS.length)],
    );
  });

  test("the copy just made stays even when its time is older than the others (a clock set back); other files are never touched", () => {
    const home = fresh();
    const path = join(home, "errand.db");
    const copy = (version: number, time: string, pid = 100): string => `${path}.pre-v${version}-${time}-${pid}.bak`;
    const justMade = copy(20, "2020-01-01T000000000Z");
    const older = [copy(16, "2026-01-01T000000000Z"), copy(17, "2026-02-01T000000000Z"), copy(18, "2026-03-01T000000000Z"), copy(19, "2026-04-01T000000000Z")];
    const foreign = [
      `${path}.mine.bak`,
      `${path}.pre-v3-yesterday.bak`,
      `${path}.pre-v19-2026-04-01T000000000Z-100.bak.old`,
      join(home, "other.db.pre-v5-2026-01-01T000000000Z-1.bak"),
      join(home, "errand-2026-12-01.db"),
    ];
    for (const f of [justMade, ...older, ...foreign]) writeFileSync(f, "x");
    const deleted = pruneMigrationBackups(path, justMade, 3);
    assert.deepEqual(deleted.sort(), older.slice(0, 2).sort(), "the two oldest of the others go");
    const left = readdirSync(home).map((f) => join(home, f));
    for (const f of [justMade, older[2], older[3], ...foreign]) assert.ok(left.includes(f ?? ""), `${f} stays`);
  });

  test("ERRAND_KEEP_MIGRATION_BACKUPS reaches the migration through the store location every command opens", async () => {
    const home = fresh();
    const path = join(home, "errand.db");
    // The schema an older errand left, with three copies from earlier upgrades.
    const db = openSqliteDatabase(path);
    migrate(db, MIGRATIONS.slice(0, -1), path);
    db.close();
    const earlier = ["2026-01-01T000000000Z", "2026-02-01T000000000Z", "2026-03-01T000000000Z"].map(
      (time, i) => `${path}.pre-v${MIGRATIONS.length - 3 + i}-${time}-7.bak`,
    );
    for (const f of earlier) writeFileSync(f, "x");
    const config = resolveRuntimeConfig({ ERRAND_HOME: home, ERRAND_KEEP_MIGRATION_BACKUPS: "2" });
    const sealer = createJournalSealer(deriveSubkey(loadOrCreateMasterKey(home), "journal"));
    const store = openOperationStore(storeLocationFor(config), { sealer });
    await store.close();
    const left = backups(home).map((f) => join(home, f));
    assert.equal(left.length, 2, left.join(", "));
    assert.ok(left.includes(earlier[2] ?? ""), "the newest earlier copy stays");
    assert.match(left.find((f) => !earlier.includes(f)) ?? "", new RegExp(`pre-v${MIGRATIONS.length}-`), "beside the copy this upgrade made");
  });
});

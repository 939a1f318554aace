// Where the operation lifecycle's decisions live (scripts/decisionHomes.mjs): the store's code uses no
// phase, approval or cancel word outside SQL and comments, and a backend that decides again is reported.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";

const SCRIPT = resolve("scripts/decisionHomes.mjs");

test("errand's store decides nothing about an operation: no decision word in its code outside SQL", () => {
  const run = spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout);
  assert.match(run.stdout, /store\/sqlite\/queries\n(?: {4}.*\n)*? {4}decideApproval\.ts \(decideApproval\)/);
});

test("a backend that writes its own approval tree is reported with the file, the line and the word; its SQL and comments are not", () => {
  const dir = mkdtempSync(join(tmpdir(), "errand-decisions-"));
  try {
    mkdirSync(join(dir, "src/core"), { recursive: true });
    mkdirSync(join(dir, "src/store/sqlite/queries"), { recursive: true });
    writeFileSync(
      join(dir, "src/store/sqlite/queries/decideApproval.ts"),
      [
        "// a comment may say awaiting_approval",
        "const rows = \"SELECT * FROM operations WHERE phase = 'awaiting_approval'\";",
        'export const kind = row.phase !== "awaiting_approval" ? "not_awaiting" : rows;',
        "",
      ].join("\n"),
    );
    const run = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: "utf8" });
    assert.equal(run.status, 1);
    assert.match(run.stdout, /src\/store\/sqlite\/queries\/decideApproval\.ts:3: awaiting_approval/);
    assert.match(run.stdout, /src\/store\/sqlite\/queries\/decideApproval\.ts:3: not_awaiting/);
    assert.doesNotMatch(run.stdout, /decideApproval\.ts:[12]:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

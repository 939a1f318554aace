// The import walls: every folder's README line "Walls: may import ...; packages ...." is what its
// files import (scripts/importWalls.mjs, run by npm run lint), and a file that climbs over one is reported.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";

const SCRIPT = resolve("scripts/importWalls.mjs");

test("errand's own folders keep within their walls", () => {
  const run = spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
});

test("a task file importing a database driver or the store is reported with the file and the import", () => {
  const dir = mkdtempSync(join(tmpdir(), "errand-walls-"));
  try {
    mkdirSync(join(dir, "src/task"), { recursive: true });
    mkdirSync(join(dir, "src/store"), { recursive: true });
    writeFileSync(join(dir, "src/task/README.md"), "The task contract.\n\nWalls: may import errors; packages canonicalize.\n");
    writeFileSync(join(dir, "src/store/README.md"), "Storage.\n\nWalls: may import task; packages pg.\n");
    writeFileSync(
      join(dir, "src/task/leak.ts"),
      'import pg from "pg";\nimport type { Store } from "../store/Store.js";\nexport const x = [pg, {} as Store];\n',
    );
    writeFileSync(join(dir, "src/store/Store.ts"), "export interface Store { id: string }\n");
    const run = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: "utf8" });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /src\/task\/leak\.ts: imports the package pg/);
    assert.match(run.stderr, /src\/task\/leak\.ts: imports \.\.\/store\/Store\.js \(src\/store\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the HTTP app never imports the composition root that builds it (only the CLI opens src/app)", async () => {
  const { importsOf, listTs } = (await import(resolve("scripts/sourceFiles.mjs"))) as {
    importsOf: (text: string) => string[];
    listTs: (dir: string) => string[];
  };
  const climbing = listTs("src/interfaces/http").flatMap((file) =>
    importsOf(readFileSync(file, "utf8"))
      .filter((specifier) => specifier.startsWith(".") && resolve(dirname(file), specifier).startsWith(resolve("src/app")))
      .map((specifier) => `${file}: ${specifier}`),
  );
  assert.deepEqual(climbing, []);
});

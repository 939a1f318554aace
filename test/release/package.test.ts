// What a release carries: the licence named in package.json, a changelog, a build before packing
// (prepack), no source maps or declarations pointing at sources the package leaves out, deploy/, and
// a version and build commit that --version reports. `npm pack --dry-run` lists the files without
// building (--ignore-scripts), so this file checks the list and the build settings separately.
// @slow: it runs npm and tsc as child processes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import { BUILD_COMMIT, VERSION, readBuildCommit, versionLine } from "../../src/interfaces/cli/version.js";

const root = new URL("../../", import.meta.url);
const readText = (path: string) => readFileSync(new URL(path, root), "utf8");
const pkg = JSON.parse(readText("package.json")) as { version: string; license: string; files: string[]; scripts: Record<string, string> };

function packedFiles(): string[] {
  const run = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const [report] = JSON.parse(run.stdout) as { files: { path: string }[] }[];
  assert.ok(report !== undefined);
  return report.files.map((f) => f.path);
}

describe("release", () => {
  test("the licence is Apache-2.0, in LICENSE and in package.json", () => {
    assert.equal(pkg.license, "Apache-2.0");
    const licence = readText("LICENSE");
    assert.match(licence, /^\s*Apache License\s+Version 2\.0, January 2004/);
    assert.match(licence, /END OF TERMS AND CONDITIONS/);
  });

  test("the changelog has a section for the package's version", () => {
    assert.match(readText("CHANGELOG.md"), new RegExp(`^## ${pkg.version.replaceAll(".", "\\.")}\\b`, "m"));
  });

  test("npm pack builds first, and the build records the commit", () => {
    assert.equal(pkg.scripts.prepack, "npm run build");
    assert.equal(pkg.scripts.build, "node scripts/build.mjs");
    const script = readText("scripts/build.mjs");
    assert.match(script, /tsconfig\.build\.json/);
    assert.match(script, /dist\/src\/buildInfo\.json/);
  });

  test("the build emits no source maps or declarations (the package ships no sources for them to point at)", () => {
    const shown = spawnSync(process.execPath, [join(root.pathname, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json", "--showConfig"], {
      cwd: root,
      encoding: "utf8",
    });
    assert.equal(shown.status, 0, shown.stderr);
    const options = (JSON.parse(shown.stdout) as { compilerOptions: Record<string, unknown> }).compilerOptions;
    assert.equal(options.sourceMap, false);
    assert.equal(options.declaration, false);
    assert.notEqual(options.declarationMap, true);
    assert.notEqual(options.inlineSourceMap, true);
  });

  test("npm pack --dry-run lists what the runtime and an operator need, and no sources, tests or maps", () => {
    const files = packedFiles();
    for (const needed of [
      "package.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "docs/SMOKE_TASK.json",
      "docs/OPERATIONS.md",
      "contracts/v1/vectors/request-digest-v1.json",
    ]) {
      assert.ok(files.includes(needed), `${needed} is packed`);
    }
    const deployFiles = readdirSync(new URL("deploy/", root), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
      .map((entry) => relative(fileURLToPath(root), join(entry.parentPath, entry.name)));
    for (const deployFile of deployFiles) assert.ok(files.includes(deployFile), `${deployFile} is packed`);
    // The vals in deploy/valtown are TypeScript a person pastes into Val Town: deploy files, not errand's sources.
    const stray = files.filter(
      (f) =>
        /^(src|test|bench|scripts|\.ci)\//.test(f) ||
        f.endsWith(".map") ||
        f.endsWith(".d.ts") ||
        (f.endsWith(".ts") && !f.startsWith("dist/") && !f.startsWith("deploy/valtown/")),
    );
    assert.deepEqual(stray, []);
    // dist/ is listed only when a build exists (prepack makes one); when it does, it holds the CLI and its build record.
    if (files.some((f) => f.startsWith("dist/"))) {
      assert.ok(files.includes("dist/src/interfaces/cli/main.js"));
      assert.ok(files.includes("dist/src/buildInfo.json"));
    }
  });

  test("the package exports createErrand and, for Deno and Val Town, errand/fetch; a deep import of an internal module is refused", async () => {
    const exportsMap = (JSON.parse(readText("package.json")) as { exports: Record<string, string> }).exports;
    assert.deepEqual(Object.keys(exportsMap).sort(), [".", "./fetch", "./package.json"]);
    assert.equal(exportsMap["."], "./dist/src/index.js");
    assert.equal(exportsMap["./fetch"], "./dist/src/interfaces/fetch/index.js");
    assert.equal(import.meta.resolve("errand/fetch"), new URL("dist/src/interfaces/fetch/index.js", root).href);
    // What the vals in deploy/valtown import from errand/fetch.
    const fetchSurface = (await import("../../src/interfaces/fetch/index.js")) as Record<string, unknown>;
    assert.deepEqual(Object.keys(fetchSurface).sort(), ["DEFAULT_DUE_WORK_BUDGET_MS", "openFetchErrand", "runDueWork", "valTownSqliteClient"]);
    // The self-reference resolves through the map, as it would for a program that installed errand.
    assert.equal(import.meta.resolve("errand"), new URL("dist/src/index.js", root).href);
    for (const deep of ["errand/dist/src/app/createErrand.js", "errand/src/app/createErrand.ts", "errand/dist/src/store/sqlite/openSqliteStore.js"]) {
      assert.throws(
        () => import.meta.resolve(deep),
        (error: NodeJS.ErrnoException) => error.code === "ERR_PACKAGE_PATH_NOT_EXPORTED",
        deep,
      );
    }
    // The module behind "." (compiled to dist/src/index.js) offers the composition root.
    const surface = (await import("../../src/index.js")) as Record<string, unknown>;
    assert.deepEqual(Object.keys(surface), ["createErrand"]);
    assert.equal(typeof surface["createErrand"], "function");
  });

  test("the version is package.json's, and --version names the build's commit", () => {
    assert.equal(VERSION, pkg.version);
    assert.equal(versionLine(), `errand ${pkg.version} (commit ${BUILD_COMMIT})`);
    // Run from source (this test), there is no build record.
    assert.equal(BUILD_COMMIT, "unknown");
  });

  test("the build record is read strictly: a missing, malformed or odd commit reads as unknown", () => {
    const dir = mkdtempSync(join(tmpdir(), "errand-buildinfo-"));
    try {
      const file = join(dir, "buildInfo.json");
      const at = pathToFileURL(file);
      assert.equal(readBuildCommit(at), "unknown");
      const sha = "0123456789abcdef0123456789abcdef01234567";
      writeFileSync(file, JSON.stringify({ version: VERSION, commit: sha }));
      assert.equal(readBuildCommit(at), sha);
      writeFileSync(file, JSON.stringify({ version: VERSION, commit: `${sha}-dirty` }));
      assert.equal(readBuildCommit(at), `${sha}-dirty`);
      writeFileSync(file, JSON.stringify({ commit: "$(rm -rf /)" }));
      assert.equal(readBuildCommit(at), "unknown");
      writeFileSync(file, "not json");
      assert.equal(readBuildCommit(at), "unknown");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

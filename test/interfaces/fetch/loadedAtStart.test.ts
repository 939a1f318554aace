// What a host loads when it starts errand's fetch entry, before any request: the modules reachable
// through static imports (type-only imports are erased; dynamic imports load only on the path that
// takes them). A Val Town isolate cannot load a native addon, and playwright-core cannot load on
// Deno without --allow-all, so neither SQLite's native binding (libsql, and @libsql/client which
// loads it) nor the browser library may be reachable from the entries or from the modules they load
// on every request (the HTTP side, the executor in program mode). Each is reached only by a dynamic
// import on the path that needs it.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The specifiers a source loads when it is imported: static imports and re-exports, not type-only ones, not dynamic ones. */
function loadedImports(text: string): string[] {
  const found: string[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?(?:[^;"`]*?\bfrom\s*)?"([^"]+)"/gms;
  for (const match of text.matchAll(statement)) if (match[2] === undefined) found.push(match[3] ?? "");
  return found;
}

/** Every package reachable from `entry` through loaded imports, with the chain of files that reaches it. */
function reachablePackages(entry: string): Map<string, string[]> {
  const parent = new Map<string, string | null>([[entry, null]]);
  const packages = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const specifier of loadedImports(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) {
        const target = join(dirname(file), specifier.replace(/\.js$/, ".ts"));
        if (!existsSync(target) || parent.has(target)) continue;
        parent.set(target, file);
        queue.push(target);
        continue;
      }
      const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? specifier);
      if (packages.has(name)) continue;
      const chain: string[] = [];
      for (let at: string | null | undefined = file; at !== null && at !== undefined; at = parent.get(at)) chain.push(relative(ROOT, at));
      packages.set(name, chain);
    }
  }
  return packages;
}

const FORBIDDEN = ["libsql", "@libsql/client", "playwright-core"];

describe("what the fetch entry loads before its first request", () => {
  for (const entry of [
    "src/interfaces/fetch/index.ts",
    "src/interfaces/deno/serve.ts",
    "src/interfaces/deno/runner.ts",
    // Loaded by the entry on demand, on every host: the HTTP side, the executor (program mode) and the libSQL stores.
    "src/app/serveHttp.ts",
    "src/app/buildRoutedExecutor.ts",
    "src/app/libsqlStores.ts",
  ]) {
    test(`${entry} reaches none of ${FORBIDDEN.join(", ")}`, () => {
      const reached = reachablePackages(join(ROOT, entry));
      for (const name of FORBIDDEN) assert.equal(reached.get(name), undefined, `${name} is loaded through ${reached.get(name)?.join(" <- ")}`);
    });
  }

  test("the check sees what it forbids: the one opener of @libsql/client reaches it, and type-only and dynamic imports are not counted", () => {
    assert.deepEqual(reachablePackages(join(ROOT, "src/store/libsql/openLibsqlClient.ts")).get("@libsql/client"), ["src/store/libsql/openLibsqlClient.ts"]);
    assert.deepEqual(
      loadedImports('import type { A } from "x";\nexport type { B } from "y";\nimport {\n  c,\n  d,\n} from "z";\nimport "w";\nconst e = await import("v");'),
      ["z", "w"],
    );
  });
});

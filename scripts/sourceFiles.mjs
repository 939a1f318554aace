// What the source checks (importWalls.mjs, decisionHomes.mjs) read: the .ts files under a folder,
// and the modules a file imports (static, bare and dynamic imports, and re-exports).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every .ts file under `dir`, depth first. */
export function listTs(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) found.push(...listTs(full));
    else if (entry.endsWith(".ts")) found.push(full);
  }
  return found;
}

/** The specifiers a source text imports or re-exports from, in the order found. */
export function importsOf(text) {
  const found = [];
  const statement = /^\s*(?:import|export)\b[^;"`]*?\bfrom\s*"([^"]+)"/gms;
  const bare = /^\s*import\s*"([^"]+)"/gm;
  const dynamic = /\bimport\(\s*"([^"]+)"\s*\)/g;
  for (const pattern of [statement, bare, dynamic]) for (const match of text.matchAll(pattern)) found.push(match[1]);
  return found;
}

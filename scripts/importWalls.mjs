// Checks the import walls: each folder under src/ says in its README which of errand's folders and
// which packages its files may import, on one line:
//   Walls: may import errors, task; packages canonicalize, node:crypto.
// ("none" for an empty list). Every import and dynamic import of every .ts file in the folder is
// compared with that line; anything else is reported with the file and the import, and the script
// exits 1. `--table` prints, for each folder, what it imports and how often: the structure at a glance.
// Usage: node scripts/importWalls.mjs [--table]
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { importsOf, listTs } from "./sourceFiles.mjs";

const SRC = "src";
const WALLS_LINE = /^Walls: may import (.+?); packages (.+?)\.\s*$/m;

function names(list) {
  return list.trim() === "none"
    ? []
    : list
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
}

/** The package an import names: node:fs, pg, @scope/name (a subpath belongs to its package). */
function packageOf(specifier) {
  if (specifier.startsWith("node:")) return specifier.split("/")[0];
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const folders = readdirSync(SRC)
  .filter((entry) => statSync(join(SRC, entry)).isDirectory())
  .sort();
const problems = [];
const table = [];
for (const folder of folders) {
  const readme = join(SRC, folder, "README.md");
  const walls = existsSync(readme) ? WALLS_LINE.exec(readFileSync(readme, "utf8")) : null;
  if (walls === null) {
    problems.push(`${readme}: no "Walls: may import ...; packages ...." line`);
    continue;
  }
  const mayFolders = new Set(names(walls[1]));
  const mayPackages = new Set(names(walls[2]));
  const counts = new Map();
  for (const file of listTs(join(SRC, folder))) {
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      let target;
      if (specifier.startsWith(".")) {
        const parts = normalize(join(dirname(file), specifier)).split(sep);
        if (parts[0] !== SRC || parts.length < 2 || parts[1] === folder) continue;
        target = parts[1];
        if (!mayFolders.has(target)) problems.push(`${relative(".", file)}: imports ${specifier} (src/${target}), which src/${folder}/README.md does not list`);
      } else {
        target = packageOf(specifier);
        if (!mayPackages.has(target)) problems.push(`${relative(".", file)}: imports the package ${target}, which src/${folder}/README.md does not list`);
      }
      counts.set(target, (counts.get(target) ?? 0) + 1);
    }
  }
  table.push([folder, [...counts.entries()].sort((a, b) => b[1] - a[1])]);
}

if (process.argv.includes("--table")) {
  for (const [folder, counts] of table) console.log(`${folder.padEnd(11)} ${counts.map(([name, n]) => `${name} ${n}`).join(", ") || "(nothing)"}`);
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`walls: ${problem}`);
  process.exit(1);
}
if (!process.argv.includes("--table")) console.log(`walls: ${folders.length} folders, every import within its README's line`);

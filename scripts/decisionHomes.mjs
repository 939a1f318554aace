// Shows where the operation lifecycle's decisions live. Two parts:
// 1. Per folder of src/ (src/store by its subfolders), the files that import src/core and what they
//    take from it: the backends should call core's transitions and decisions, not repeat them.
// 2. The backends (src/store, outside src/core) scanned for the lifecycle's decision words (phases,
//    approval and cancel answers and outcomes) used as values in code: comments and SQL text (string
//    literals holding SELECT, INSERT, UPDATE, DELETE, CREATE or a WHERE clause) are removed first,
//    since selecting by phase is the SQL's job; so are one-line type aliases (a type decides nothing). Each remaining use is printed with its file and line.
//    A word listed in ALLOWED (file → words) is a known use that decides nothing (a type, a
//    parameter mapping); anything else makes the script exit 1.
// It is a text scan, not a parser: it finds literal words, so a decision written without them (a
// boolean passed along, a number compared) is not seen. Read part 1 for that.
// Usage: node scripts/decisionHomes.mjs
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { importsOf, listTs } from "./sourceFiles.mjs";

const SRC = "src";
const CORE = join(SRC, "core");
const BACKENDS = join(SRC, "store");

/**
 * Phases, approval answers and cancel outcomes: the words a decision tree about an operation is
 * written in. Answers that are plain English and shared with other stores' answers ("expired",
 * "approved", "denied", "repeated", "applied": OAuth codes and tokens expire too) are left out.
 */
const DECISION_WORDS = [
  "awaiting_approval",
  "queued",
  "running",
  "completed",
  "blocked",
  "uncertain",
  "cancelled",
  "not_awaiting",
  "digest_mismatch",
  "approval_denied",
  "approval_expired",
  "cancel_requested",
  "already_terminal",
  "control_id_reused",
];

/** Known uses in the store that decide nothing, each with the reason it is there. */
const ALLOWED = new Map([
  // rowAfter keeps the lease token only on a running row: how a record maps onto its row's columns.
  ["src/store/rows/operationRows.ts", new Set(["running"])],
  // core's crossBoundary answers "cancel_requested"; the backends hand it on as the port's BoundaryResult.
  ["src/store/sqlite/queries/crossMutationBoundary.ts", new Set(["cancel_requested"])],
  ["src/store/postgres/queries/leases.ts", new Set(["cancel_requested"])],
  ["src/store/libsql/queries/crossMutationBoundary.ts", new Set(["cancel_requested"])],
  // The IN list of compactable phases, an SQL fragment kept in a constant (PostgreSQL writes it inline).
  ["src/store/sqlite/queries/compact.ts", new Set(["completed", "blocked", "cancelled"])],
]);

/** The folder a file is reported under: src/<folder>, or src/store/<subfolder> for the store. */
function folderOf(file) {
  const parts = relative(SRC, file).split(sep);
  if (parts[0] === "store" && parts.length > 2) return `store/${parts.slice(1, -1).join("/")}`;
  return parts[0];
}

// ---- 1. who imports core ----------------------------------------------------------------------
const importers = new Map();
for (const file of listTs(SRC)) {
  if (file.startsWith(CORE + sep)) continue;
  const fromCore = importsOf(readFileSync(file, "utf8"))
    .filter((s) => s.startsWith("."))
    .map((s) => normalize(join(dirname(file), s)))
    .filter((target) => target.startsWith(CORE + sep))
    .map((target) => relative(CORE, target).replace(/\.js$/, ""));
  if (fromCore.length === 0) continue;
  const folder = folderOf(file);
  if (!importers.has(folder)) importers.set(folder, []);
  importers.get(folder).push(`${relative(dirname(file), file)} (${[...new Set(fromCore)].join(", ")})`);
}
console.log("Files importing src/core, by folder:");
for (const [folder, files] of [...importers.entries()].sort()) {
  console.log(`  ${folder}`);
  for (const file of files.sort()) console.log(`    ${file}`);
}

// ---- 2. decision words in the backends' code ------------------------------------------------
const SQL = /\b(SELECT|INSERT|UPDATE|DELETE|CREATE|WHERE)\b/;

/** The text with comments, type aliases and SQL string literals blanked, line breaks kept so line numbers hold. */
function codeOnly(text) {
  const blank = (s) => s.replace(/[^\n]/g, " ");
  return text
    .replace(/^\s*(?:export\s+)?type\s[^\n]*$/gm, blank)
    .replace(/\/\*[\s\S]*?\*\//g, blank)
    .replace(/(^|[^:"'`])\/\/[^\n]*/g, (m, lead) => lead + blank(m.slice(lead.length)))
    .replace(/`(?:\\[\s\S]|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, (literal) => (SQL.test(literal) ? blank(literal) : literal));
}

const word = new RegExp(`["'\`](${DECISION_WORDS.join("|")})["'\`]`, "g");
const found = [];
const allowed = [];
for (const file of listTs(BACKENDS)) {
  const lines = codeOnly(readFileSync(file, "utf8")).split("\n");
  lines.forEach((line, index) => {
    for (const match of line.matchAll(word)) {
      const where = `${relative(".", file)}:${index + 1}: ${match[1]}`;
      (ALLOWED.get(relative(".", file))?.has(match[1]) ? allowed : found).push(where);
    }
  });
}
console.log(`\nDecision words used as values in src/store's code (SQL and comments left out): ${found.length}`);
for (const where of found) console.log(`  ${where}`);
if (allowed.length > 0) {
  console.log(`Known uses that decide nothing (ALLOWED in this script): ${allowed.length}`);
  for (const where of allowed) console.log(`  ${where}`);
}
process.exit(found.length === 0 ? 0 : 1);

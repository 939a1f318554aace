// docs/PROMISES.md lists what errand promises and the tests that prove it; this keeps the list honest.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const REFERENCE = /`([^`]+\.test\.ts)` › "([^"]+)"/g;

interface PromiseRow {
  id: string;
  references: { file: string; name: string }[];
}

/** Every table row of the document whose first cell is a promise id, with its test references. */
export function readPromises(markdown: string): PromiseRow[] {
  const rows: PromiseRow[] = [];
  for (const line of markdown.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const id = cells[1] ?? "";
    if (!line.startsWith("|") || !/^[A-Z]+\d+$/.test(id)) continue;
    rows.push({ id, references: [...line.matchAll(REFERENCE)].map((m) => ({ file: m[1] ?? "", name: m[2] ?? "" })) });
  }
  return rows;
}

/** Whether `source` declares a test called `name`, its name quoted or in backticks, on the test( line or the next (a formatter may move a long name there). */
export function namesTest(source: string, name: string): boolean {
  const literal = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`\\btest\\(\\s*(?:"${literal}"|\`${literal}\`)`).test(source);
}

/** Problems with the list: promises without a test, tests that do not exist. */
export function checkPromises(rows: PromiseRow[], read: (file: string) => string | undefined): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const row of rows) {
    if (ids.has(row.id)) problems.push(`${row.id} is listed twice`);
    ids.add(row.id);
    if (row.references.length === 0) problems.push(`${row.id} names no test`);
    for (const { file, name } of row.references) {
      const source = read(file);
      if (source === undefined) problems.push(`${row.id}: ${file} does not exist`);
      else if (!namesTest(source, name)) problems.push(`${row.id}: ${file} has no test named "${name}"`);
    }
  }
  return problems;
}

const readRepoFile = (file: string): string | undefined => {
  const path = `${ROOT}${file}`;
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
};

describe("docs/PROMISES.md", () => {
  test("every listed promise names at least one test, and every named test exists", () => {
    const rows = readPromises(readFileSync(`${ROOT}docs/PROMISES.md`, "utf8"));
    assert.ok(rows.length >= 20, `only ${rows.length} promises were read: is the table format intact?`);
    assert.deepEqual(checkPromises(rows, readRepoFile), []);
  });

  test("the check catches a promise whose test is missing, renamed, or absent", () => {
    const doc = [
      '| X1 | kept | `test/docs/promises.test.ts` › "the check catches a promise whose test is missing, renamed, or absent" |',
      '| X2 | renamed | `test/docs/promises.test.ts` › "a test that was never written" |',
      '| X3 | gone | `test/nowhere/missing.test.ts` › "anything" |',
      "| X4 | untested | (none yet) |",
    ].join("\n");
    const problems = checkPromises(readPromises(doc), readRepoFile);
    assert.equal(problems.length, 3, problems.join("\n"));
    assert.match(problems[0] ?? "", /^X2: .* has no test named/);
    assert.match(problems[1] ?? "", /^X3: .* does not exist/);
    assert.match(problems[2] ?? "", /^X4 names no test/);
  });

  test("a test's name is found on the line after test( too, and its special characters are taken literally", () => {
    const source = 'test(\n  "a name (with) $pecial [chars].*",\n  () => {},\n);\ntest(`in backticks`, () => {});';
    assert.equal(namesTest(source, "a name (with) $pecial [chars].*"), true);
    assert.equal(namesTest(source, "in backticks"), true);
    assert.equal(namesTest(source, "a name (with) $pecial [chars]x*"), false);
    assert.equal(namesTest('contest("x")', "x"), false, "only a call of test itself counts");
  });
});

// docs/ERRORS.md lists exactly the codes in src/errors/errorCodes.ts, each once, each with a meaning.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ERROR_CODES } from "../../src/errors/errorCodes.js";

const doc = readFileSync(new URL("../../docs/ERRORS.md", import.meta.url), "utf8");
const rows = [...doc.matchAll(/^\| `([a-z0-9_]+)` \| (.*) \|$/gm)].map((m) => ({ code: m[1]!, meaning: m[2]!.trim() }));

describe("docs/ERRORS.md agrees with ERROR_CODES", () => {
  test("every code in ERROR_CODES has a row", () => {
    const documented = new Set(rows.map((r) => r.code));
    const missing = Object.keys(ERROR_CODES).filter((code) => !documented.has(code));
    assert.deepEqual(missing, [], "add these codes to docs/ERRORS.md");
  });

  test("every row is a code in ERROR_CODES", () => {
    const extra = rows.map((r) => r.code).filter((code) => !Object.hasOwn(ERROR_CODES, code));
    assert.deepEqual(extra, [], "these documented codes do not exist in src/errors/errorCodes.ts");
  });

  test("each code appears once, with a one-line meaning", () => {
    const seen = new Set<string>();
    for (const { code, meaning } of rows) {
      assert.ok(!seen.has(code), `${code} is listed twice`);
      seen.add(code);
      assert.ok(meaning.length >= 10, `${code} has no real meaning text`);
    }
  });
});

// The redactor against the ways real pages and protocols spell a secret: case, whitespace and line
// breaks inside it, percent (once and twice), form, HTML-entity, JSON and base64 encodings, every run
// of at least 8 of its characters as well as the whole, and ordinary text left alone.
// Property-based over generated secrets and surroundings.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { REDACTED, Redactor } from "../../src/executor/redactor.js";
import { propertyRuns } from "../support/propertyRuns.js";

const secretArb = fc
  .string({ unit: fc.constantFrom(...Array.from("abcXYZ019 !#$%&'()*+,-./:;<=>?@[]^_`{|}~\"\\é€😀")), minLength: 8, maxLength: 24 })
  .filter((s) => s.replace(/\s+/g, "").length >= 8);
const noise = fc.string({ unit: fc.constantFrom(...Array.from("qrstuvw .,;\n-_")), maxLength: 20 });

const SPELLINGS: Record<string, (s: string) => string> = {
  raw: (s) => s,
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  splitLines: (s) => [...s].join("\n"),
  doubledSpaces: (s) => s.replace(/ /g, "   "),
  trailingNewlineStripped: (s) => s.trimEnd(),
  percent: (s) => encodeURIComponent(s),
  percentLowerHex: (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  percentTwice: (s) => encodeURIComponent(encodeURIComponent(s)),
  form: (s) => new URLSearchParams({ v: s }).toString().slice(2),
  htmlNamed: (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;"),
  htmlNumeric: (s) => [...s].map((c) => `&#${c.codePointAt(0) ?? 0};`).join(""),
  htmlHex: (s) => [...s].map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`).join(""),
  json: (s) => JSON.stringify(s).slice(1, -1),
  jsonAscii: (s) =>
    JSON.stringify(s)
      .slice(1, -1)
      .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
};

const squash = (s: string) => s.replace(/\s+/g, "").toLowerCase();

describe("Redactor", () => {
  for (const [name, spell] of Object.entries(SPELLINGS)) {
    test(`redactor scrubs the ${name} spelling inside arbitrary text`, () => {
      fc.assert(
        fc.property(secretArb, noise, noise, (secret, before, after) => {
          const redactor = new Redactor();
          redactor.add(secret);
          const out = redactor.scrub(`${before}${spell(secret)}${after}`);
          assert.ok(out.includes(REDACTED), out);
          assert.ok(!squash(out).includes(squash(secret)), out);
          assert.ok(redactor.carries(`${before}${spell(secret)}${after}`));
        }),
        propertyRuns(40, 4),
      );
    });
  }

  /** The secret's runs of `length` characters (whitespace removed, lower-cased), for searching a squashed output. */
  const runsOf = (secret: string, length: number): string[] => {
    const compact = [...squash(secret)];
    return Array.from({ length: Math.max(0, compact.length - length + 1) }, (_, i) => compact.slice(i, i + length).join(""));
  };

  for (const [name, spell] of Object.entries(SPELLINGS)) {
    test(`redactor scrubs every run of 8 or more of the secret's characters, ${name} spelling (a partial echo)`, () => {
      fc.assert(
        fc.property(secretArb, fc.nat(), fc.nat(), noise, noise, (secret, from, cut, before, after) => {
          const chars = [...secret];
          const start = from % chars.length;
          const end = Math.min(chars.length, start + 8 + (cut % chars.length));
          const part = chars.slice(start, end).join("");
          fc.pre([...part.replace(/\s+/g, "")].length >= 8);
          const redactor = new Redactor();
          redactor.add(secret);
          const text = `${before}${spell(part)}${after}`;
          const out = redactor.scrub(text);
          assert.ok(out.includes(REDACTED), out);
          for (const run of runsOf(part, 8)) assert.ok(!squash(out).includes(run), `${run} survived in ${out}`);
          assert.ok(redactor.carries(text));
        }),
        propertyRuns(40, 4),
      );
    });
  }

  test("redactor: the secret without its first character (21 of 22) is scrubbed whole; 7 consecutive characters are left", () => {
    const redactor = new Redactor();
    const secret = "Xq7-Canary-Partial-9zk";
    redactor.add(secret);
    assert.equal(redactor.scrub(`echo: ${secret.slice(1)}!`), `echo: ${REDACTED}!`);
    assert.equal(redactor.scrub(`echo: ${secret.slice(0, -1).toUpperCase()}`), `echo: ${REDACTED}`);
    assert.equal(redactor.scrub(`a ${secret.slice(3, 10)} b ${secret.slice(12, 19)} c`), `a ${secret.slice(3, 10)} b ${secret.slice(12, 19)} c`);
    assert.equal(redactor.carries(secret.slice(3, 10)), false);
    assert.equal(redactor.carries(encodeURIComponent(secret.slice(5, 13))), true);
    assert.equal(redactor.carries(Buffer.from(`user:${secret.slice(1)}`).toString("base64")), true);
  });

  test("redactor scrubs base64 and base64url of the secret at any offset inside a longer value", () => {
    fc.assert(
      fc.property(secretArb, fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), fc.boolean(), (secret, prefix, suffix, url) => {
        const redactor = new Redactor();
        redactor.add(secret);
        const encoded = Buffer.from(`${prefix}${secret}${suffix}`).toString(url ? "base64url" : "base64");
        const out = redactor.scrub(`Authorization: Basic ${encoded}`);
        assert.ok(out.includes(REDACTED), out);
        assert.ok(redactor.carries(encoded));
      }),
      propertyRuns(200, 10),
    );
  });

  test("redactor leaves ordinary text alone and scrubs only the secret's own characters", () => {
    const redactor = new Redactor();
    redactor.add("Canary Tr1ck 7f3q");
    // Fragments of up to 7 of its characters are ordinary text ("canary" and "tr1ck7f" are 6 and 7).
    const text = "Status: all 3 books returned in 2024; a canary was mentioned, tr1ck 7f too; password: yes";
    assert.equal(redactor.scrub(text), text);
    assert.equal(redactor.scrub("before CANARY\nTR1CK  7F3Q after"), `before ${REDACTED} after`);
    assert.equal(redactor.carries(text), false);
  });

  test("redactor stays fast on hostile input (no catastrophic backtracking), a secret of the longest allowed length included", () => {
    const redactor = new Redactor();
    redactor.add("a+b+c+d+e+f+g+h");
    // 4096 characters, punctuation and encoding syntax among them: every 7-character prefix repeated is a near miss.
    const longest = Array.from({ length: 4096 }, (_, i) => "aB3%&+\\ #;x:/-_=?"[(i * 7) % 19]).join("");
    redactor.add(longest);
    const started = Date.now();
    redactor.scrub(`${"a+".repeat(20_000)}${" +".repeat(20_000)}%20`.repeat(3));
    redactor.scrub(`${longest.slice(0, 7)}%2`.repeat(5_000) + "%25%25&#x".repeat(5_000));
    assert.ok(redactor.carries(`z${longest.slice(100, 140)}z`));
    // Generous bound: a backtracking blow-up takes minutes, not seconds.
    assert.ok(Date.now() - started < 10_000);
  });

  test("scrubDeep scrubs keys and values of nested JSON", () => {
    const redactor = new Redactor();
    redactor.add("s3cr3t-value");
    assert.deepEqual(redactor.scrubDeep({ a: ["x S3CR3T-VALUE y"], "s3cr3t-value": 1 }), { a: [`x ${REDACTED} y`], [REDACTED]: 1 });
  });
});

// canonicalJson against the RFC 8785 reference vectors (test/fixtures/rfc8785, see SOURCE.txt there),
// number-formatting cases, and property tests for idempotence and key-order independence.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { describe, test } from "node:test";
import fc from "fast-check";
import { canonicalJson } from "../../src/task/canonicalJson.js";
import { propertyRuns } from "../support/propertyRuns.js";

const VECTORS = new URL("../fixtures/rfc8785/cyberphone/", import.meta.url);

describe("canonicalJson: RFC 8785 reference vectors", () => {
  const names = readdirSync(new URL("input/", VECTORS))
    .filter((name) => name.endsWith(".json"))
    .sort();

  test("the fixture set is complete and carries its source notice", () => {
    assert.deepEqual(names, ["arrays.json", "french.json", "structures.json", "unicode.json", "values.json", "weird.json"]);
    assert.deepEqual(readdirSync(new URL("output/", VECTORS)).sort(), names);
    const notice = readFileSync(new URL("../fixtures/rfc8785/SOURCE.txt", import.meta.url), "utf8");
    assert.match(notice, /cyberphone\/json-canonicalization/);
    assert.match(notice, /Apache License 2\.0/);
  });

  for (const name of names) {
    test(`${name}: canonical bytes equal the expected output exactly`, () => {
      const input = readFileSync(new URL(`input/${name}`, VECTORS), "utf8");
      const expected = readFileSync(new URL(`output/${name}`, VECTORS));
      const actual = Buffer.from(canonicalJson(JSON.parse(input)), "utf8");
      assert.ok(actual.equals(expected), `got ${actual.toString("utf8")}\nwanted ${expected.toString("utf8")}`);
    });
  }
});

describe("canonicalJson: numbers use the ECMAScript shortest round-trip form", () => {
  // IEEE 754 bit patterns and the text RFC 8785 requires for them, shared with other implementations (clients/python).
  const NUMBERS = (
    JSON.parse(readFileSync(new URL("../../contracts/v1/vectors/rfc8785-numbers.json", import.meta.url), "utf8")) as {
      numbers: { bits: string; canonical: string }[];
    }
  ).numbers.map((n): [string, string] => [n.bits, n.canonical]);
  test("the shared number table is there (24 cases)", () => assert.equal(NUMBERS.length, 24));
  for (const [bits, text] of NUMBERS) {
    test(`0x${bits} → ${text}`, () => {
      assert.equal(canonicalJson(Buffer.from(bits, "hex").readDoubleBE(0)), text);
    });
  }

  test("numbers written differently in the source give the same bytes", () => {
    assert.equal(canonicalJson(JSON.parse("[1.0, 1E0, 10e-1, 0.1e1, -0, 0.0]")), "[1,1,1,1,0,0]");
  });

  test("NaN and infinities have no canonical form and throw", () => {
    assert.throws(() => canonicalJson(Number.NaN));
    assert.throws(() => canonicalJson(Number.POSITIVE_INFINITY));
    assert.throws(() => canonicalJson([JSON.parse("1e400") as number]));
  });
});

describe("canonicalJson: strings and keys", () => {
  test("only the required characters are escaped; everything else is literal UTF-8", () => {
    assert.equal(canonicalJson('\b\f\n\r\t"\\'), '"\\b\\f\\n\\r\\t\\"\\\\"');
    assert.equal(canonicalJson("\u0000\u001f\u007f"), '"\\u0000\\u001f\u007f"');
    assert.equal(canonicalJson("/ < > & ' \u2028 \u2029 é 😂"), '"/ < > & \' \u2028 \u2029 é 😂"');
  });

  test("keys sort by UTF-16 code units, not by code points or locale", () => {
    // U+1F602 is stored as D83D DE02, which sorts before U+E000 and U+FB33 by code unit.
    const value = { "\ufb33": 1, "\ue000": 2, "😂": 3, é: 4, Z: 5, a: 6, "10": 7, "1": 8, "": 9 };
    assert.equal(canonicalJson(value), '{"":9,"1":8,"10":7,"Z":5,"a":6,"é":4,"😂":3,"\ue000":2,"\ufb33":1}');
  });

  test("Unicode is not normalized (A + combining ring stays two code points)", () => {
    assert.equal(canonicalJson("A\u030a"), '"A\u030a"');
    assert.notEqual(canonicalJson("A\u030a"), canonicalJson("\u00c5"));
  });

  test("an unpaired surrogate has no canonical form and throws", () => {
    assert.throws(() => canonicalJson("\ud800"));
    assert.throws(() => canonicalJson({ ["\udc00"]: 1 }));
  });

  test("values with no JSON form throw instead of silently vanishing", () => {
    assert.throws(() => canonicalJson(undefined), TypeError);
    assert.throws(() => canonicalJson(() => 1), TypeError);
  });

  test("a __proto__ key from JSON.parse is an ordinary key", () => {
    assert.equal(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":1},"a":2}')), '{"__proto__":{"x":1},"a":2,"b":1}');
  });
});

/** Rebuilds every object with its keys in an order picked by `seed`, leaving the content alone. */
function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => shuffleKeys(item, seed + i));
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value);
  let state = seed >>> 0 || 1;
  for (let i = entries.length - 1; i > 0; i -= 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    const j = state % (i + 1);
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    Object.defineProperty(out, key, { value: shuffleKeys(item, state + key.length), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

describe("canonicalJson: properties", () => {
  const json = fc.jsonValue({ maxDepth: 4 });

  test("canonical(JSON.parse(canonical(x))) === canonical(x)", () => {
    fc.assert(
      fc.property(json, (value) => {
        const once = canonicalJson(value);
        assert.equal(canonicalJson(JSON.parse(once)), once);
      }),
      propertyRuns(1500),
    );
  });

  test("the canonical text parses back to the same JSON value", () => {
    fc.assert(
      fc.property(json, (value) => {
        assert.deepEqual(JSON.parse(canonicalJson(value)), JSON.parse(JSON.stringify(value)));
      }),
      propertyRuns(1000),
    );
  });

  test("key order in the input does not matter", () => {
    fc.assert(
      fc.property(json, fc.integer(), (value, seed) => {
        assert.equal(canonicalJson(shuffleKeys(value, seed)), canonicalJson(value));
      }),
      propertyRuns(1000),
    );
  });

  test("insignificant whitespace in the source does not matter", () => {
    fc.assert(
      fc.property(json, (value) => {
        assert.equal(canonicalJson(JSON.parse(JSON.stringify(value, null, 3))), canonicalJson(value));
      }),
      propertyRuns(500),
    );
  });
});

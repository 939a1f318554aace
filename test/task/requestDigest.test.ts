// The request digest: golden vectors from contracts/v1/vectors, key-length enforcement, domain
// separation, and that the digest covers exactly the normalized task.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { canonicalJson } from "../../src/task/canonicalJson.js";
import { MIN_KEY_BYTES, REQUEST_DIGEST_DOMAIN, requestDigest } from "../../src/task/requestDigest.js";
import type { Task } from "../../src/task/taskTypes.js";
import { EXAMPLE_STEPS, expectValid, minimalTask } from "./taskFixtures.js";

interface Vector {
  name: string;
  description: string;
  input: Record<string, unknown>;
  normalized: Task;
  canonical: string;
  requestDigest: string;
}
interface VectorFile {
  algorithm: string;
  domain: string;
  separator: string;
  keyHex: string;
  vectors: Vector[];
}

const FILE = JSON.parse(readFileSync(new URL("../../contracts/v1/vectors/request-digest-v1.json", import.meta.url), "utf8")) as VectorFile;
const KEY = Buffer.from(FILE.keyHex, "hex");

/** The formula written out independently of src/task/requestDigest.ts. */
function referenceDigest(key: Uint8Array, domain: string, canonical: string): string {
  const message = Buffer.concat([Buffer.from(domain, "utf8"), Buffer.from([0]), Buffer.from(canonical, "utf8")]);
  return `hmac-sha256:${createHmac("sha256", key).update(message).digest("hex")}`;
}

describe("requestDigest: golden vectors (contracts/v1/vectors/request-digest-v1.json)", () => {
  test("the file describes the formula errand implements", () => {
    assert.equal(FILE.algorithm, "HMAC-SHA-256");
    assert.equal(FILE.domain, REQUEST_DIGEST_DOMAIN);
    assert.equal(FILE.domain, "errand/operation-request/v1");
    assert.equal(FILE.separator, "\u0000");
    assert.match(FILE.keyHex, /^[0-9a-f]{64}$/);
    assert.ok(FILE.vectors.length >= 5);
    assert.equal(new Set(FILE.vectors.map((v) => v.name)).size, FILE.vectors.length, "vector names are unique");
  });

  for (const vector of FILE.vectors) {
    describe(vector.name, () => {
      test("the raw input normalizes to the recorded task", () => {
        assert.deepEqual(expectValid(vector.input), vector.normalized);
      });
      test("the normalized task re-normalizes to itself", () => {
        assert.deepEqual(expectValid(vector.normalized), vector.normalized);
      });
      test("its canonical bytes are the recorded string", () => {
        assert.equal(canonicalJson(vector.normalized), vector.canonical);
        assert.equal(canonicalJson(expectValid(vector.input)), vector.canonical);
      });
      test("its digest is the recorded one, by errand and by the written-out formula", () => {
        assert.match(vector.requestDigest, /^hmac-sha256:[0-9a-f]{64}$/);
        assert.equal(requestDigest(KEY, expectValid(vector.input)), vector.requestDigest);
        assert.equal(referenceDigest(KEY, FILE.domain, vector.canonical), vector.requestDigest);
      });
    });
  }

  test("the two spellings of the same task share one digest; all other vectors differ", () => {
    const byName = new Map(FILE.vectors.map((v) => [v.name, v.requestDigest]));
    assert.equal(byName.get("untidy-spelling"), byName.get("tidy-spelling"));
    const others = FILE.vectors.filter((v) => v.name !== "tidy-spelling").map((v) => v.requestDigest);
    assert.equal(new Set(others).size, others.length);
  });
});

describe("requestDigest: key length", () => {
  const task = expectValid(minimalTask());

  for (const length of [0, 1, 16, MIN_KEY_BYTES - 1]) {
    test(`a ${length}-byte key is refused`, () => {
      assert.throws(() => requestDigest(new Uint8Array(length), task), RangeError);
    });
  }

  test("the minimum is 32 bytes", () => {
    assert.equal(MIN_KEY_BYTES, 32);
  });

  for (const length of [32, 33, 64, 200]) {
    test(`a ${length}-byte key is accepted`, () => {
      assert.match(requestDigest(new Uint8Array(length).fill(1), task), /^hmac-sha256:[0-9a-f]{64}$/);
    });
  }

  test("the refusal does not echo key material", () => {
    const key = Buffer.from("secret-key-material-0123456789", "utf8");
    assert.throws(
      () => requestDigest(key, task),
      (error: unknown) => error instanceof Error && !error.message.includes("secret-key-material"),
    );
  });

  test("a different key gives a different digest", () => {
    const other = Buffer.from(KEY);
    other[31] = other[31]! ^ 1;
    assert.notEqual(requestDigest(other, task), requestDigest(KEY, task));
  });
});

describe("requestDigest: domain separation", () => {
  const task = expectValid(minimalTask());
  const canonical = canonicalJson(task);
  const digest = requestDigest(KEY, task);

  test("equals HMAC over domain + NUL + canonical task", () => {
    assert.equal(digest, referenceDigest(KEY, REQUEST_DIGEST_DOMAIN, canonical));
  });

  const variants: Array<[string, string]> = [
    ["another version of the domain", referenceDigest(KEY, "errand/operation-request/v2", canonical)],
    ["another purpose", referenceDigest(KEY, "errand/journal-event/v1", canonical)],
    ["an empty domain", referenceDigest(KEY, "", canonical)],
    ["no domain and no separator", `hmac-sha256:${createHmac("sha256", KEY).update(canonical, "utf8").digest("hex")}`],
    [
      "the domain without the NUL separator",
      `hmac-sha256:${createHmac("sha256", KEY)
        .update(REQUEST_DIGEST_DOMAIN + canonical, "utf8")
        .digest("hex")}`,
    ],
    ["an empty key", `hmac-sha256:${createHmac("sha256", Buffer.alloc(0)).update(`${REQUEST_DIGEST_DOMAIN}\u0000${canonical}`).digest("hex")}`],
  ];
  for (const [name, other] of variants) {
    test(`differs from a MAC with ${name}`, () => {
      assert.notEqual(other, digest);
    });
  }
});

describe("requestDigest: covers exactly the normalized task", () => {
  const base = minimalTask({
    label: "check",
    allowedHosts: ["cdn.example.com"],
    timeouts: { taskMs: 30_000 },
    steps: [EXAMPLE_STEPS["fill"], EXAMPLE_STEPS["extract_text"], EXAMPLE_STEPS["expect_text"]],
  });
  const baseDigest = requestDigest(KEY, expectValid(base));

  test("spellings that normalize the same digest the same", () => {
    const respelled = {
      ...base,
      operationId: String(base["operationId"]).toUpperCase(),
      target: { url: "HTTPS://EXAMPLE.COM:443/./" },
      allowedHosts: ["CDN.example.com.", "cdn.example.com"],
      approved: false,
      secretApproval: false,
      evidenceRetention: "minimal",
      provider: "auto",
    };
    assert.equal(requestDigest(KEY, expectValid(respelled)), baseDigest);
  });

  const changes: Array<[string, Record<string, unknown>]> = [
    ["operationId", { operationId: "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e56" }],
    ["label", { label: "check!" }],
    ["label removed", { label: undefined }],
    ["target.url", { target: { url: "https://example.com/?" } }],
    ["allowedHosts", { allowedHosts: ["cdn.example.com", "img.example.com"] }],
    ["risk", { risk: "reversible_write", approved: true }],
    ["approved on a read-only task", { approved: true }],
    ["secretApproval", { secretApproval: true }],
    ["evidenceRetention", { evidenceRetention: "full" }],
    ["provider", { provider: "local" }],
    ["timeouts", { timeouts: { taskMs: 30_001 } }],
    ["a step value", { steps: [{ ...EXAMPLE_STEPS["fill"], value: "Ada " }, EXAMPLE_STEPS["extract_text"], EXAMPLE_STEPS["expect_text"]] }],
    ["step order", { steps: [EXAMPLE_STEPS["extract_text"], EXAMPLE_STEPS["fill"], EXAMPLE_STEPS["expect_text"]] }],
    ["a step timeout", { steps: [{ ...EXAMPLE_STEPS["fill"], timeoutMs: 5_000 }, EXAMPLE_STEPS["extract_text"], EXAMPLE_STEPS["expect_text"]] }],
  ];
  for (const [name, change] of changes) {
    test(`changing ${name} changes the digest`, () => {
      const changed: Record<string, unknown> = { ...base, ...change };
      for (const key of Object.keys(changed)) if (changed[key] === undefined) delete changed[key];
      assert.notEqual(requestDigest(KEY, expectValid(changed)), baseDigest);
    });
  }

  test("the digest is the MAC of canonical(normalized), not of the raw input", () => {
    const raw = { ...base, operationId: String(base["operationId"]).toUpperCase() };
    const normalized = expectValid(raw);
    assert.equal(requestDigest(KEY, normalized), referenceDigest(KEY, REQUEST_DIGEST_DOMAIN, canonicalJson(normalized)));
    assert.notEqual(requestDigest(KEY, normalized), referenceDigest(KEY, REQUEST_DIGEST_DOMAIN, canonicalJson(raw)));
  });

  test("key order of the task object does not matter", () => {
    const task = expectValid(base);
    const reversed = Object.fromEntries(Object.entries(task).reverse()) as unknown as Task;
    assert.equal(requestDigest(KEY, reversed), requestDigest(KEY, task));
  });
});

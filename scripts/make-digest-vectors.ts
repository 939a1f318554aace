// Writes contracts/v1/vectors/request-digest-v1.json: golden request-digest vectors with a fixed,
// public test key. Run once with `npx tsx scripts/make-digest-vectors.ts` and commit the result;
// test/task/requestDigest.test.ts recomputes every vector, so any change to normalization, canonical
// JSON or the digest formula shows up as a failing test rather than as a silently new file.
// `--check` compares instead of writing (exit 1 on drift).
import { readFileSync, writeFileSync } from "node:fs";
import { canonicalJson } from "../src/task/canonicalJson.js";
import { REQUEST_DIGEST_DOMAIN, requestDigest } from "../src/task/requestDigest.js";
import { validateTask } from "../src/task/validateTask.js";

const OUTPUT = new URL("../contracts/v1/vectors/request-digest-v1.json", import.meta.url);

/** 32 bytes 0x00..0x1f. Public on purpose: it exists only to check implementations against each other. */
const TEST_KEY_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

interface VectorSource {
  name: string;
  description: string;
  input: Record<string, unknown>;
}

const SOURCES: VectorSource[] = [
  {
    name: "minimal-read-only",
    description: "The smallest valid task; normalization adds every default (allowedHosts, approvals, retention, provider, match).",
    input: {
      schemaVersion: "errand.task.v1",
      operationId: "6f1d3a0e-2b4c-4d8e-9a7b-1c2d3e4f5a6b",
      target: { url: "https://example.com/" },
      risk: "read_only",
      steps: [{ action: "expect_text", text: "Example Domain" }],
    },
  },
  {
    name: "untidy-spelling",
    description:
      "Upper-case UUID and host, default port, dot segments, unordered allowedHosts with a duplicate and trailing dots, a padded upper-case attribute name, an empty timeouts object.",
    input: {
      steps: [
        { action: "goto", url: "HTTPS://Shop.Example.COM:443/a/./b/../catalog?page=2" },
        { action: "extract_attribute", selector: "a.next", attribute: " HREF\t", name: "nextPage" },
        { action: "expect_text", text: "Catalog" },
      ],
      timeouts: {},
      allowedHosts: ["shop.example.com.", "*.CDN.example.com", "Shop.Example.com"],
      risk: "read_only",
      target: { url: "HTTPS://SHOP.EXAMPLE.COM:443/" },
      operationId: "B7E2C9A4-5D31-4F60-8E1A-0C9D8B7A6F54",
      schemaVersion: "errand.task.v1",
    },
  },
  {
    name: "tidy-spelling",
    description: "The same task as untidy-spelling written in normalized form with every default explicit: it must give the same digest.",
    input: {
      schemaVersion: "errand.task.v1",
      operationId: "b7e2c9a4-5d31-4f60-8e1a-0c9d8b7a6f54",
      target: { url: "https://shop.example.com/" },
      allowedHosts: ["*.cdn.example.com", "shop.example.com"],
      risk: "read_only",
      approved: false,
      secretApproval: false,
      evidenceRetention: "minimal",
      provider: "auto",
      steps: [
        { action: "goto", url: "https://shop.example.com/a/catalog?page=2" },
        { action: "extract_attribute", selector: "a.next", attribute: "href", name: "nextPage" },
        { action: "expect_text", text: "Catalog", match: "contains" },
      ],
    },
  },
  {
    name: "approved-write-non-ascii",
    description:
      "An approved reversible write whose label and text hold non-ASCII letters, an emoji (a surrogate pair), U+2028, a control character, quotes and a backslash: checks UTF-8 encoding and string escaping.",
    input: {
      schemaVersion: "errand.task.v1",
      operationId: "0c4e8a2f-9b1d-4e63-a5f7-3d2c1b0a9e8f",
      label: "Räksmörgås order ✓ 😂",
      target: { url: "https://café.example/menu" },
      risk: "reversible_write",
      approved: true,
      timeouts: { taskMs: 45_000, stepMs: 8_000 },
      steps: [
        { action: "fill", selector: "#note", value: 'Line one\u2028"quoted" \\ back\u0007bell' },
        { action: "select", selector: "select[name=size]", value: "große" },
        { action: "click", selector: "button[type=submit]", timeoutMs: 15_000 },
        { action: "expect_text", text: "Bestellung gespeichert ✓", selector: "#status", match: "exact" },
      ],
    },
  },
  {
    name: "secret-full-retention",
    description: "A read-only login check with fill_secret (so secretApproval), full evidence retention, the local provider and an international allowed host.",
    input: {
      schemaVersion: "errand.task.v1",
      operationId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
      target: { url: "https://portal.example.org/login" },
      allowedHosts: ["*.portal.example.org", "bücher.example"],
      risk: "read_only",
      secretApproval: true,
      evidenceRetention: "full",
      provider: "local",
      steps: [
        { action: "fill", selector: "#username", value: "ada" },
        { action: "fill_secret", selector: "#password", envVar: "PORTAL_PASSWORD" },
        { action: "click", selector: "text=Sign in" },
        { action: "wait_for", selector: "#dashboard" },
        { action: "extract_text", selector: "#dashboard h1", name: "greeting" },
        { action: "expect_url", url: "https://portal.example.org/home", match: "prefix" },
      ],
    },
  },
  {
    name: "consequential-every-action",
    description: "A consequential, approved task using each of the eleven actions once.",
    input: {
      schemaVersion: "errand.task.v1",
      operationId: "1d2e3f40-5a6b-4c7d-9e8f-a0b1c2d3e4f5",
      label: "every action",
      target: { url: "https://example.net/start" },
      risk: "consequential",
      approved: true,
      secretApproval: true,
      provider: "kernel",
      steps: [
        { action: "goto", url: "https://example.net/form" },
        { action: "wait_for", selector: "form#order" },
        { action: "fill", selector: "#qty", value: "3" },
        { action: "fill_secret", selector: "#card-pin", envVar: "CARD_PIN" },
        { action: "type", selector: "#comment", text: "leave at the door" },
        { action: "select", selector: "#shipping", value: "express" },
        { action: "click", selector: "button#place-order" },
        { action: "extract_text", selector: "#order-number", name: "orderNumber" },
        { action: "extract_attribute", selector: "a#receipt", attribute: "href", name: "receiptLink" },
        { action: "expect_text", text: "Thank you" },
        { action: "expect_url", url: "https://example.net/orders/", match: "prefix" },
      ],
    },
  },
];

function buildVectorFile(): string {
  const key = Buffer.from(TEST_KEY_HEX, "hex");
  const vectors = SOURCES.map(({ name, description, input }) => {
    const result = validateTask(input);
    if (!result.ok) throw new Error(`vector ${name} does not validate: ${JSON.stringify(result.errors)}`);
    return {
      name,
      description,
      input,
      normalized: result.value,
      canonical: canonicalJson(result.value),
      requestDigest: requestDigest(key, result.value),
    };
  });
  const file = {
    about: "errand request-digest golden vectors, version 1. See README.md next to this file for the formula.",
    algorithm: "HMAC-SHA-256",
    domain: REQUEST_DIGEST_DOMAIN,
    separator: "\u0000",
    keyHex: TEST_KEY_HEX,
    vectors,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

const text = buildVectorFile();
if (process.argv.includes("--check")) {
  const current = readFileSync(OUTPUT, "utf8");
  if (current !== text) {
    process.stderr.write("request-digest-v1.json differs from what the generator produces\n");
    process.exitCode = 1;
  }
} else {
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${OUTPUT.pathname} (${SOURCES.length} vectors)\n`);
}

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { classifyHostName, normalizeHost } from "../../src/policy/classifyHostName.js";

describe("classifyHostName", () => {
  test("lets ordinary multi-label names through to DNS", () => {
    for (const name of [
      "example.com",
      "www.example.co.uk",
      "a-b.example",
      "xn--bcher-kva.example",
      "metadata.example.com",
      "localhost.example.com",
      "internal.example.com",
      "1.example.com",
      "example.com1",
    ]) {
      assert.equal(classifyHostName(name), null, name);
    }
  });

  test("refuses localhost, metadata, private-use suffixes, single labels, empty labels and numeric last labels", () => {
    for (const name of [
      "",
      "localhost",
      "a.localhost",
      "metadata",
      "metadata.google.internal",
      "metadata.goog",
      "metadata.amazonaws.com",
      "instance-data",
      "x.internal",
      "x.local",
      "x.home.arpa",
      "x.localdomain",
      "x.lan",
      "x.default.svc",
      "intranet",
      "a..b",
      ".a.b",
      "a.b.",
      "a.123",
      "a.0x1f",
      "a.0x",
    ]) {
      const verdict = classifyHostName(name);
      assert.ok(verdict !== null, name);
      assert.equal(verdict.code, "name_blocked");
    }
  });

  test("normalizes one trailing dot, case and IPv6 brackets", () => {
    assert.equal(normalizeHost("Example.COM."), "example.com");
    assert.equal(normalizeHost("example.com.."), "example.com.");
    assert.equal(normalizeHost("[::1]"), "::1");
  });
});

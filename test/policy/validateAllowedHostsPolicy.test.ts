import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { validateAllowedHostsPolicy } from "../../src/policy/validateAllowedHostsPolicy.js";

describe("validateAllowedHostsPolicy", () => {
  test("normalizes good entries (case, trailing dot, IDN) and drops duplicates", () => {
    assert.deepEqual(validateAllowedHostsPolicy(["Example.COM.", "*.example.org", "example.com", "bücher.example"]), {
      ok: true,
      value: ["example.com", "*.example.org", "xn--bcher-kva.example"],
    });
  });

  test("refuses schemes, ports, paths, IPs, localhost, metadata and private-use names, with the entry's path", () => {
    const bad = [
      "https://example.com",
      "example.com:443",
      "example.com/path",
      "user@example.com",
      "127.0.0.1",
      "0x7f.1",
      "[::1]",
      "::1",
      "localhost",
      "foo.localhost",
      "*.google.internal",
      "metadata.google.internal",
      "metadata",
      "instance-data",
      "metadata.goog",
      "printer.local",
      "intranet",
      "*.com",
      "*",
      "*.*.example.com",
      "exa*mple.com",
      "",
      "example..com",
      "*.metadata.amazonaws.com",
    ];
    for (const [index, entry] of bad.entries()) {
      const result = validateAllowedHostsPolicy(["example.com", entry], "/allowedHosts");
      assert.equal(result.ok, false, entry);
      if (!result.ok) {
        assert.equal(result.errors.length, 1, entry);
        assert.equal(result.errors[0]?.code, "invalid_allowed_host");
        assert.equal(result.errors[0]?.path, "/allowedHosts/1", `${index}: ${entry}`);
      }
    }
  });
});

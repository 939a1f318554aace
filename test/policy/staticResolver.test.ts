import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createStaticResolver, parseStaticResolveEntries } from "../../src/policy/staticResolver.js";

describe("createStaticResolver", () => {
  test("matches hosts case-insensitively with one trailing dot ignored; unknown names do not exist", async () => {
    const resolver = createStaticResolver({ "Site.Example.": ["8.8.8.8"], "none.example": [] });
    assert.deepEqual(await resolver.resolve("site.example"), { addresses: ["8.8.8.8"] });
    assert.deepEqual(await resolver.resolve("SITE.EXAMPLE."), { addresses: ["8.8.8.8"] });
    assert.deepEqual(await resolver.resolve("none.example"), { error: "no_answer" });
    assert.deepEqual(await resolver.resolve("other.example"), { error: "nxdomain" });
    assert.deepEqual(await resolver.resolve("site.example.."), { error: "nxdomain" });
  });
});

describe("parseStaticResolveEntries", () => {
  test("reads HOST=IP[,IP...] with IPv6 unbracketed, HOST= as no answer, and adds up repeated hosts", () => {
    const parsed = parseStaticResolveEntries(["Site.Example.=93.184.215.14,2606:4700:0::1", "site.example=1.1.1.1", "empty.example=", "v6.example=::1"]);
    assert.ok(parsed.ok);
    assert.deepEqual(
      [...parsed.value.entries()],
      [
        ["site.example", ["93.184.215.14", "2606:4700::1", "1.1.1.1"]],
        ["empty.example", []],
        ["v6.example", ["::1"]],
      ],
    );
  });

  test("refuses malformed entries and non-canonical IP spellings", () => {
    for (const bad of [
      "site.example",
      "=1.1.1.1",
      "site.example=[::1]",
      "site.example=127.1",
      "site.example=0x7f000001",
      "site.example=1.1.1.1;2.2.2.2",
      "a b=1.1.1.1",
      "http://x=1.1.1.1",
      "site.example=localhost",
    ]) {
      assert.equal(parseStaticResolveEntries([bad]).ok, false, bad);
    }
  });
});

// The canary search the leak tests rely on finds every spelling it claims to (so a "never found"
// means something): raw, upper case, spaced out, percent-encoded once and twice, hex, base64 at each
// byte alignment inside a longer value, and inside an image's bytes or their base64; and it stays
// quiet on a near miss.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { canaryHaystack, carriesCanary, imageCarriesCanary } from "./support/secretSites.js";

const CANARY = "Pref-Cookie-Canary-2718";
const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);

describe("canary search", () => {
  test("finds the canary raw, in any case, spaced, percent-encoded, in hex and in base64 at every alignment; not a near miss", () => {
    const spellings: [string, string][] = [
      ["raw", `sid=x; pref=${CANARY}`],
      ["upper case", CANARY.toUpperCase()],
      ["spaced and wrapped", CANARY.split("").join(" \n")],
      ["percent-encoded", encodeURIComponent(`v=${CANARY}`)],
      ["percent-encoded twice", encodeURIComponent(encodeURIComponent(`v=${CANARY}`))],
      ["hex", Buffer.from(`{${CANARY}}`).toString("hex")],
      ["hex, upper case", Buffer.from(CANARY).toString("hex").toUpperCase()],
      ...[0, 1, 2].map((shift): [string, string] => [`base64 at offset ${shift}`, Buffer.from(`${"x".repeat(shift + 3)}${CANARY};`).toString("base64")]),
    ];
    for (const [name, text] of spellings) assert.ok(carriesCanary(text, CANARY), name);
    for (const miss of [CANARY.slice(0, -1), CANARY.replace("Cookie", "C00kie"), Buffer.from(CANARY.slice(0, 10)).toString("hex")])
      assert.ok(!carriesCanary(miss, CANARY), miss);
  });

  test("finds the canary in an image's bytes and in their base64, and names where", () => {
    const image = Buffer.concat([JPEG_HEAD, Buffer.from(` comment ${CANARY} `), Buffer.alloc(64, 0x7f)]);
    assert.ok(imageCarriesCanary(image, CANARY));
    assert.ok(carriesCanary(image.toString("base64"), CANARY), "the image's base64 carries the canary's base64");
    assert.ok(!imageCarriesCanary(Buffer.concat([JPEG_HEAD, Buffer.alloc(64, 0x7f)]), CANARY));
    const find = canaryHaystack(
      [["a clean answer", "{}"]],
      [
        ["frame 0", JPEG_HEAD],
        ["frame 1", image],
      ],
    );
    assert.equal(find(CANARY), "frame 1");
    assert.equal(find("Some-Other-Canary-Value"), null);
  });
});

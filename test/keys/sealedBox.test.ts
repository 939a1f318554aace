// The AES-256-GCM box used for data at rest: round trip, associated data bound, tampering and
// truncation refused with opaque reasons, fresh nonces, and a key length checked at construction.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import fc from "fast-check";
import { createSealedBox, SealedBoxError } from "../../src/keys/sealedBox.js";

const key = randomBytes(32);

describe("sealedBox", () => {
  test("sealedBox round-trips any bytes under the same associated data", () => {
    const box = createSealedBox(key);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.string(), (bytes, aad) => {
        assert.deepEqual(new Uint8Array(box.open(box.seal(bytes, aad), aad)), bytes);
      }),
    );
  });

  test("sealedBox refuses another associated data, another key, a flipped bit and truncation", () => {
    const box = createSealedBox(key);
    const sealed = box.seal("canary-value-123", "name=a;sites=x");
    const reason = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        assert.ok(error instanceof SealedBoxError);
        assert.ok(!error.message.includes("canary"), "the message never carries the plaintext");
        return error.reason;
      }
      return "opened";
    };
    assert.equal(
      reason(() => box.open(sealed, "name=a;sites=y")),
      "mac",
    );
    assert.equal(
      reason(() => createSealedBox(randomBytes(32)).open(sealed, "name=a;sites=x")),
      "mac",
    );
    const raw = Buffer.from(sealed.slice(6), "base64url");
    raw[raw.length - 20] = (raw[raw.length - 20] ?? 0) ^ 1;
    assert.equal(
      reason(() => box.open(`aead1.${raw.toString("base64url")}`, "name=a;sites=x")),
      "mac",
    );
    assert.equal(
      reason(() => box.open("aead1.AAAA", "x")),
      "truncated",
    );
    assert.equal(
      reason(() => box.open("plain", "x")),
      "malformed",
    );
    assert.equal(
      reason(() => box.open("aead1.!!", "x")),
      "malformed",
    );
  });

  test("sealedBox uses a fresh nonce per seal and does not show the plaintext", () => {
    const box = createSealedBox(key);
    const a = box.seal("same-value-1234", "aad");
    const b = box.seal("same-value-1234", "aad");
    assert.notEqual(a, b);
    assert.ok(!a.includes("same-value"));
  });

  test("sealedBox refuses a key that is not 32 bytes", () => {
    assert.throws(() => createSealedBox(randomBytes(16)), RangeError);
  });
});

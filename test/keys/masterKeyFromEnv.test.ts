// ERRAND_MASTER_KEY: the master key of a host without a lasting file system. Exactly 32 bytes in
// canonical standard base64 are accepted; anything else stops errand with an error that names the
// variable and the rule and never repeats the value. createErrand given such a key reads and writes
// no key file, and a journal written under one key does not verify under another.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { createErrand } from "../../src/app/createErrand.js";
import { ConfigError } from "../../src/config/configError.js";
import { MASTER_KEY_VARIABLE, masterKeyFromEnv } from "../../src/keys/masterKeyFromEnv.js";
import { readTask } from "../operations/support/tasks.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-env-key-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const refusal = (value: string): ConfigError => {
  try {
    masterKeyFromEnv({ [MASTER_KEY_VARIABLE]: value });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(value)}`);
};

describe("ERRAND_MASTER_KEY", () => {
  test("absent or empty means no key from the environment; 32 random bytes in base64 are the key, surrounding whitespace ignored", () => {
    assert.equal(masterKeyFromEnv({}), null);
    assert.equal(masterKeyFromEnv({ [MASTER_KEY_VARIABLE]: "  " }), null);
    const key = randomBytes(32);
    assert.ok(masterKeyFromEnv({ [MASTER_KEY_VARIABLE]: ` ${key.toString("base64")}\n` })?.equals(key));
  });

  test("refuses hex, url-safe base64, 16 or 64 bytes, a missing pad and a non-canonical last character, naming the variable and the rule, never the value", () => {
    const key = randomBytes(32);
    const canonical = key.toString("base64");
    const lastIndex = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".indexOf(canonical.charAt(42));
    const nonCanonical = `${canonical.slice(0, 42)}${"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charAt(lastIndex | 1)}=`;
    const bad = [
      key.toString("hex"),
      key.toString("base64url"),
      randomBytes(16).toString("base64"),
      randomBytes(64).toString("base64"),
      canonical.slice(0, 43),
      nonCanonical,
      `${canonical}A`,
    ];
    for (const value of bad) {
      const error = refusal(value);
      assert.match(error.message, /ERRAND_MASTER_KEY/);
      assert.match(error.message, /32 (random )?bytes/);
      assert.ok(!error.message.includes(value.slice(0, 12)), "the message repeats part of the value");
    }
  });

  test("any string is either refused with the variable named or gives exactly 32 bytes that encode back to it (fuzzed)", () => {
    const base64ish = fc.stringMatching(/^[A-Za-z0-9+/=_ -]{0,60}$/);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          base64ish,
          fc.uint8Array({ minLength: 0, maxLength: 48 }).map((bytes) => Buffer.from(bytes).toString("base64")),
        ),
        (value) => {
          let key: Buffer | null;
          try {
            key = masterKeyFromEnv({ [MASTER_KEY_VARIABLE]: value });
          } catch (error) {
            assert.ok(error instanceof ConfigError);
            assert.match(error.message, /ERRAND_MASTER_KEY/);
            return;
          }
          if (key === null) assert.equal(value.trim(), "");
          else {
            assert.equal(key.length, 32);
            assert.equal(key.toString("base64"), value.trim());
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("createErrand given the key writes no key file, and what it journals verifies under that key only", async () => {
    const home = join(scratch, "home");
    const key = randomBytes(32);
    const errand = await createErrand({ env: { ERRAND_HOME: home }, masterKey: key });
    try {
      const submitted = await errand.service.submit(readTask(randomUUID()));
      assert.ok(submitted.ok, JSON.stringify(submitted));
      assert.equal((await errand.service.verifyJournal()).ok, true);
    } finally {
      await errand.close();
    }
    assert.equal(existsSync(join(home, "keys")), false, "no keys/ folder: the key lives only in the environment");

    const other = await createErrand({ env: { ERRAND_HOME: home }, masterKey: randomBytes(32) });
    try {
      assert.equal((await other.service.verifyJournal()).ok, false, "a journal written under one key does not verify under another");
    } finally {
      await other.close();
    }
  });
});

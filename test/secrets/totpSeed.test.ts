// TOTP seeds (RFC 6238): the Appendix B vectors for SHA1, SHA256 and SHA512 through an otpauth URI
// and a bare base32 key, and pointed refusals of seeds errand cannot use.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseTotpSeed, totpCode, TotpSeedError } from "../../src/secrets/totpSeed.js";

/** RFC 4648 base32 without padding, written here independently of errand's decoder. */
function base32(bytes: Buffer): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const byte of bytes) bits += byte.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)];
  return out;
}

const SEEDS = {
  SHA1: Buffer.from("12345678901234567890", "ascii"),
  SHA256: Buffer.from("12345678901234567890123456789012", "ascii"),
  SHA512: Buffer.from("1234567890123456789012345678901234567890123456789012345678901234", "ascii"),
};

// RFC 6238 Appendix B: time in seconds, then the 8-digit codes for SHA1, SHA256, SHA512.
const VECTORS: [number, string, string, string][] = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

describe("TOTP seeds", () => {
  test("RFC 6238 Appendix B: every vector for SHA1, SHA256 and SHA512, from an otpauth URI", () => {
    for (const [seconds, sha1, sha256, sha512] of VECTORS) {
      for (const [algorithm, expected] of [
        ["SHA1", sha1],
        ["SHA256", sha256],
        ["SHA512", sha512],
      ] as const) {
        const seed = parseTotpSeed(
          `otpauth://totp/Example:alice@example.com?secret=${base32(SEEDS[algorithm])}&issuer=Example&algorithm=${algorithm}&digits=8&period=30`,
        );
        assert.equal(totpCode(seed, seconds * 1000), expected, `${algorithm} at ${seconds}`);
      }
    }
  });

  test("a bare base32 key (spaces, dashes, lower case and padding allowed) means 6 digits, 30 s, SHA1", () => {
    const key = base32(SEEDS.SHA1);
    const spaced = key
      .toLowerCase()
      .replace(/(.{4})/g, "$1 ")
      .replace(/ (\S)/, "-$1");
    const seed = parseTotpSeed(`  ${spaced}====\n`);
    assert.deepEqual({ ...seed, key: "" }, { key: "", digits: 6, period: 30, algorithm: "SHA1" });
    assert.equal(totpCode(seed, 59_000), "287082", "the last 6 digits of the 8-digit SHA1 vector");
    assert.equal(totpCode(seed, 59_000), totpCode(seed, 31_000), "one code per 30-second step");
    assert.notEqual(totpCode(seed, 59_000), totpCode(seed, 61_000));
  });

  test("seeds errand cannot use are refused with the parameter at fault, never the key", () => {
    const key = base32(SEEDS.SHA1);
    const refused: [string, RegExp][] = [
      [`otpauth://hotp/x?secret=${key}&counter=1`, /type "hotp".*time-based codes only/],
      ["otpauth://totp/x?issuer=Example", /no secret= parameter/],
      [`otpauth://totp/x?secret=${key}&digits=5`, /digits=5 is not usable: a TOTP code has 6, 7 or 8 digits/],
      [`otpauth://totp/x?secret=${key}&digits=six`, /digits=six is not a whole number/],
      [`otpauth://totp/x?secret=${key}&period=0`, /period=0 is not usable/],
      [`otpauth://totp/x?secret=${key}&algorithm=MD5`, /algorithm=MD5 is not usable: give SHA1, SHA256 or SHA512/],
      ["otpauth://totp/x?secret=JBSW1Y3DPEHPK3PX", /secret= is not base32: character 5/],
      ["JBSWY3DP", /holds 5 bytes; a TOTP key has at least 10/],
      ["", /empty/],
      ["horse battery staple 1890", /not base32: character 19/],
    ];
    for (const [raw, message] of refused) {
      assert.throws(
        () => parseTotpSeed(raw),
        (error: unknown) => error instanceof TotpSeedError && message.test(error.message) && !error.message.includes(key),
        raw,
      );
    }
  });
});

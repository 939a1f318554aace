import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Prefixes make errand's secrets recognisable (secret scanners, logs) and tell their kinds apart. */
export const SECRET_PREFIX = {
  access: "errand_at_",
  refresh: "errand_rt_",
  code: "errand_ac_",
  clientSecret: "errand_cs_",
  api: "errand_api_",
  /**
   * An operator API token (`errand token create --scope all`): it sees every operation. Its own kind
   * puts its hash in a domain of its own, so an edited database cannot turn an "api" token into one.
   */
  operator: "errand_op_",
  /** A metrics token (`errand token create --scope metrics`): it reads /metrics and nothing else; its own kind too. */
  metrics: "errand_mt_",
} as const;
export type SecretKind = keyof typeof SECRET_PREFIX;

/**
 * Mints and hashes the HTTP layer's bearer secrets. Only hashes are stored: HMAC-SHA-256 under a
 * subkey of the master key ("http-secrets"), domain-separated by kind, so a copy of the database
 * alone does not let anyone check a guessed token, and a hash of one kind never matches another.
 */
export interface SecretHasher {
  /** A new 256-bit secret with its kind's prefix. */
  mint(kind: SecretKind): string;
  /**
   * A secret of `kind` computed from another secret (HMAC under the key, its own domain): as
   * unguessable as a minted one to anyone without both, and the same every time, so an exchange
   * retried with the same input answers with the same secret without storing it anywhere.
   */
  derive(kind: SecretKind, from: string): string;
  hash(kind: SecretKind, secret: string): string;
  /** Constant-time equality of two hex hashes; false for anything malformed. */
  equal(expectedHash: string, actualHash: string): boolean;
}

export const MIN_SECRET_KEY_BYTES = 32;

export function createSecretHasher(key: Uint8Array): SecretHasher {
  if (key.length < MIN_SECRET_KEY_BYTES) throw new RangeError(`the secret-hashing key must be at least ${MIN_SECRET_KEY_BYTES} bytes`);
  const secret = Buffer.from(key);
  return {
    mint: (kind) => `${SECRET_PREFIX[kind]}${randomBytes(32).toString("base64url")}`,
    derive: (kind, from) =>
      `${SECRET_PREFIX[kind]}${createHmac("sha256", secret).update(`errand/http-secret-derived/${kind}\u0000${from}`, "utf8").digest("base64url")}`,
    hash: (kind, value) => createHmac("sha256", secret).update(`errand/http-secret/${kind}\u0000${value}`, "utf8").digest("hex"),
    equal(expectedHash, actualHash) {
      if (!/^[0-9a-f]{64}$/.test(expectedHash) || !/^[0-9a-f]{64}$/.test(actualHash)) return false;
      return timingSafeEqual(Buffer.from(expectedHash, "hex"), Buffer.from(actualHash, "hex"));
    },
  };
}

/** PKCE S256: BASE64URL(SHA-256(ASCII(code_verifier))). */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** A random, URL-safe identifier (ids, CSRF tokens, consent requests). */
export function randomId(bytes = 16): string {
  return randomBytes(bytes).toString("base64url");
}

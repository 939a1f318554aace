import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * The owner password is kept as a scrypt hash: "scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>".
 * N = 2^15, r = 8, p = 1 costs about 32 MiB and a tenth of a second per guess.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
export const MIN_OWNER_PASSWORD_CHARS = 10;
export const MAX_OWNER_PASSWORD_CHARS = 1024;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r }, (error, key) =>
      error === null ? resolve(key) : reject(error),
    );
  });
}

/** Why a proposed password is refused, or null when it is acceptable. */
export function ownerPasswordProblem(password: string): string | null {
  if (password.length < MIN_OWNER_PASSWORD_CHARS) return `The owner password must have at least ${MIN_OWNER_PASSWORD_CHARS} characters.`;
  if (password.length > MAX_OWNER_PASSWORD_CHARS) return `The owner password may have at most ${MAX_OWNER_PASSWORD_CHARS} characters.`;
  return null;
}

export async function hashOwnerPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, LOG_N, R, P);
  return ["scrypt", LOG_N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** True only for the right password; a malformed stored hash fails closed. */
export async function verifyOwnerPassword(password: string, encoded: string): Promise<boolean> {
  if (password.length === 0 || password.length > MAX_OWNER_PASSWORD_CHARS) return false;
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [logN, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4] ?? "", "base64url");
  const expected = Buffer.from(parts[5] ?? "", "base64url");
  if (salt.length < 16 || expected.length !== KEY_BYTES) return false;
  const actual = await derive(password, salt, logN, r, p);
  return timingSafeEqual(actual, expected);
}

/** Tells one stored owner password from the next (a digest of its salted hash), so a page can say the password changed; reveals nothing of it. */
export function ownerSecretMark(encoded: string | undefined): string | undefined {
  return encoded === undefined ? undefined : createHash("sha256").update(`errand-owner-secret-mark\0${encoded}`).digest("base64url").slice(0, 16);
}

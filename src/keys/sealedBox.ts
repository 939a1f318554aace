import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { ErrandError } from "../errors/errandError.js";

/**
 * Authenticated encryption at rest: AES-256-GCM with a fresh 96-bit nonce per seal and caller
 * "associated data" (bound to the ciphertext but not hidden, e.g. a secret's name and sites), so a
 * sealed value moved to another row, or a row whose bound fields were edited, no longer opens.
 *
 * Sealed text: "aead1." + base64url(nonce 12 bytes | ciphertext | tag 16 bytes).
 * Give each purpose its own key (deriveSubkey(master, purpose)); the box never sees the master key.
 * Opening fails closed with an opaque reason and never puts the plaintext or the key in a message.
 */
export const SEALED_PREFIX = "aead1.";
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export type OpenFailure = "malformed" | "truncated" | "mac";

/** Thrown when sealed text cannot be opened under this key and associated data. */
export class SealedBoxError extends ErrandError {
  constructor(readonly reason: OpenFailure) {
    super("secret_unreadable", `sealed value cannot be opened (${reason})`);
  }
}

export interface SealedBox {
  seal(plaintext: Uint8Array | string, associatedData: string): string;
  open(sealed: string, associatedData: string): Buffer;
}

/** A box under one 32-byte key. The key length is checked here, once, so a short key can never be used. */
export function createSealedBox(key: Uint8Array): SealedBox {
  if (key.length !== KEY_BYTES) throw new RangeError(`a sealed box needs a ${KEY_BYTES}-byte key`);
  const boxKey = Buffer.from(key);
  return {
    seal(plaintext, associatedData) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", boxKey, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(associatedData, "utf8"));
      const body = Buffer.concat([cipher.update(typeof plaintext === "string" ? Buffer.from(plaintext, "utf8") : plaintext), cipher.final()]);
      return SEALED_PREFIX + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
    },
    open(sealed, associatedData) {
      if (!sealed.startsWith(SEALED_PREFIX)) throw new SealedBoxError("malformed");
      const encoded = sealed.slice(SEALED_PREFIX.length);
      if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new SealedBoxError("malformed");
      const raw = Buffer.from(encoded, "base64url");
      if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SealedBoxError("truncated");
      const decipher = createDecipheriv("aes-256-gcm", boxKey, raw.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(associatedData, "utf8"));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new SealedBoxError("mac");
      }
    },
  };
}

/**
 * `sealed`, opened under `from` and sealed again under `to` with the same associated data (a key
 * rotation). The plaintext is overwritten as soon as it is sealed again. Throws SealedBoxError when
 * it does not open under `from`.
 */
export function reseal(from: SealedBox, to: SealedBox, sealed: string, associatedData: string): string {
  const plain = from.open(sealed, associatedData);
  try {
    return to.seal(plain, associatedData);
  } finally {
    plain.fill(0);
  }
}

import { ConfigError } from "../config/configError.js";

/** The variable a host without a lasting file system (Deno Deploy, Val Town) gives errand its master key in. */
export const MASTER_KEY_VARIABLE = "ERRAND_MASTER_KEY";

const KEY_BYTES = 32;
/** Standard base64 of 32 bytes: 43 characters and one "=" pad. */
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;

/**
 * The master key from ERRAND_MASTER_KEY (32 bytes in standard base64, as `openssl rand -base64 32`
 * prints it), or null when the variable is absent or empty. Anything else stops errand with a
 * ConfigError naming the variable and the rule; the message never repeats the value, since a
 * near-miss of a key is still most of a key.
 */
export function masterKeyFromEnv(env: Readonly<Record<string, string | undefined>>): Buffer | null {
  const raw = env[MASTER_KEY_VARIABLE];
  if (raw === undefined) return null;
  const text = raw.trim();
  if (text === "") return null;
  if (!BASE64_OF_32_BYTES.test(text)) {
    throw new ConfigError(
      `${MASTER_KEY_VARIABLE} must be ${KEY_BYTES} random bytes in standard base64: 44 characters of A-Z, a-z, 0-9, + and /, the last one "=" (the value given has ${text.length} characters and is not shown). Make one with: openssl rand -base64 32`,
    );
  }
  const key = Buffer.from(text, "base64");
  // The pattern admits only canonical encodings of 32 bytes; checked again so no decoder leniency can shorten a key.
  if (key.length !== KEY_BYTES || key.toString("base64") !== text)
    throw new ConfigError(`${MASTER_KEY_VARIABLE} does not decode to exactly ${KEY_BYTES} bytes; make one with: openssl rand -base64 32`);
  return key;
}

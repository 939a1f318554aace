import { createHmac } from "node:crypto";
import { canonicalJson } from "./canonicalJson.js";
import type { Task } from "./taskTypes.js";

export const REQUEST_DIGEST_DOMAIN = "errand/operation-request/v1";
export const MIN_KEY_BYTES = 32;

/**
 * requestDigest = "hmac-sha256:" + hex HMAC-SHA-256(key, UTF8(domain + "\0" + JCS(normalizedTask))).
 * The domain prefix keeps this MAC from ever colliding with a MAC errand computes for another purpose.
 */
export function requestDigest(key: Uint8Array, normalizedTask: Task): string {
  if (key.length < MIN_KEY_BYTES) throw new RangeError(`digest key must be at least ${MIN_KEY_BYTES} bytes`);
  const mac = createHmac("sha256", key);
  mac.update(`${REQUEST_DIGEST_DOMAIN}\u0000${canonicalJson(normalizedTask)}`, "utf8");
  return `hmac-sha256:${mac.digest("hex")}`;
}

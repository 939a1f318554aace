import canonicalize from "canonicalize";

/**
 * RFC 8785 (JCS) canonical form of a JSON value. The library drops undefined and stringifies
 * objects with toJSON (such as Date), so only plain JSON values may be passed: callers digest
 * parsed JSON or normalized tasks, never live objects.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("canonicalJson: the value has no JSON form");
  return text;
}

import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { UntrustedForwarding } from "../interfaces/http/forwardedHeaderWatch.js";

/**
 * What the running `errand serve` last saw of forwarded headers it could not use, for
 * `errand doctor`: a small file in ERRAND_HOME, written when serve warns (at most once an hour) and
 * removed when serve starts, so it always describes the server as it is configured now. It holds
 * addresses and counts only.
 */
export const FORWARDED_STATUS_FILE = "forwarded-headers.json";

export function writeForwardedStatus(home: string, seen: UntrustedForwarding): void {
  const path = join(home, FORWARDED_STATUS_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(seen)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

export function clearForwardedStatus(home: string): void {
  rmSync(join(home, FORWARDED_STATUS_FILE), { force: true });
}

/** The recorded sighting, or undefined when there is none (or the file is not errand's). */
export function readForwardedStatus(home: string): UntrustedForwarding | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(home, FORWARDED_STATUS_FILE), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const r = parsed as Record<string, unknown>;
  if (
    typeof r["peer"] !== "string" ||
    typeof r["header"] !== "string" ||
    typeof r["firstSeenMs"] !== "number" ||
    typeof r["lastSeenMs"] !== "number" ||
    typeof r["requests"] !== "number"
  )
    return undefined;
  const trusted = Array.isArray(r["trustedProxies"]) ? r["trustedProxies"].filter((e): e is string => typeof e === "string") : [];
  return {
    problem: r["problem"] === "no_x_forwarded_for" ? "no_x_forwarded_for" : "untrusted_peer",
    peer: r["peer"].slice(0, 100),
    header: r["header"].slice(0, 40),
    firstSeenMs: r["firstSeenMs"],
    lastSeenMs: r["lastSeenMs"],
    requests: r["requests"],
    trustedProxies: trusted,
  };
}

import type { Problem, Result } from "../errors/result.js";
import { canonicalIp } from "./classifyIp.js";
import { normalizeHost } from "./classifyHostName.js";

/**
 * An operator's exception: this exact host (name or IP) on this exact port may be reached even though
 * it is private. Only operators create these (flag or environment); a task cannot.
 */
export interface PrivateAllowance {
  /** Lowercase name without trailing dot, or canonical IP text without brackets. */
  host: string;
  port: number;
}

/**
 * Parses operator allowances written `HOST:PORT`, several per string separated by commas (the
 * `--allow-private` flag, repeatable, and the ERRAND_ALLOW_PRIVATE variable). IPv6 hosts are written
 * in brackets: `[::1]:8080`. The port is required; there are no wildcards and no ranges.
 */
export function parseAllowPrivate(texts: readonly string[]): Result<PrivateAllowance[]> {
  const allowances: PrivateAllowance[] = [];
  const errors: Problem[] = [];
  for (const text of texts) {
    for (const raw of text.split(",")) {
      const entry = raw.trim();
      if (entry === "") continue;
      const parsed = parseOne(entry);
      if (typeof parsed === "string") errors.push({ code: "usage", path: "", message: `allow-private entry "${entry}": ${parsed}` });
      else if (!allowances.some((a) => a.host === parsed.host && a.port === parsed.port)) allowances.push(parsed);
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: allowances };
}

function parseOne(entry: string): PrivateAllowance | string {
  const colon = entry.lastIndexOf(":");
  if (colon < 0) return "write HOST:PORT (IPv6 as [ADDR]:PORT)";
  const hostText = entry.slice(0, colon);
  const portText = entry.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return "the port must be a number from 1 to 65535";
  if (hostText.includes(":") && !(hostText.startsWith("[") && hostText.endsWith("]"))) return "write an IPv6 address in brackets, e.g. [::1]:8080";
  if (hostText === "" || hostText.includes("*") || /[\s/\\?#@%]/.test(hostText)) return "the host must be one exact name or IP address";
  let hostname: string;
  try {
    hostname = new URL(`http://${hostText}/`).hostname;
  } catch {
    return "the host is not a valid name or IP address";
  }
  const host = normalizeHost(hostname);
  return { host: canonicalIp(host) ?? host, port: Number(portText) };
}

/** True when an allowance names exactly this host (name or IP, normalized) and port. */
export function allowanceMatches(allowances: readonly PrivateAllowance[], host: string, port: number): boolean {
  const normalized = normalizeHost(host);
  const key = canonicalIp(normalized) ?? normalized;
  return allowances.some((a) => a.port === port && a.host === key);
}

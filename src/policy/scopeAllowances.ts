import { canonicalIp } from "./classifyIp.js";
import { normalizeHost } from "./classifyHostName.js";
import type { PrivateAllowance } from "./parseAllowPrivate.js";

/**
 * The operator allowances one task may use: those whose host the task names itself, exactly, as
 * its target's host or as an allowedHosts entry (a name, or the allowance's IP literal). A wildcard
 * entry names no host exactly and admits no allowance. Every layer (preflight, in-browser check,
 * egress proxy) is built from this subset, so an allowance made for one task's intranet host is
 * unreachable from every other task, whatever its pages send.
 */
export function scopeAllowances(allowances: readonly PrivateAllowance[], taskHosts: readonly string[]): PrivateAllowance[] {
  const named = new Set(taskHosts.filter((host) => !host.startsWith("*.")).map(hostKey));
  return allowances.filter((allowance) => named.has(hostKey(allowance.host)));
}

/** The comparable form of a host: lowercase, no trailing dot, no brackets, IPs in canonical text. */
function hostKey(host: string): string {
  const normalized = normalizeHost(host);
  return canonicalIp(normalized) ?? normalized;
}

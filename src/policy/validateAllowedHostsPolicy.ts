import type { Problem, Result } from "../errors/result.js";
import { normalizeHostPattern } from "../task/normalizeHostPattern.js";
import { canonicalIp } from "./classifyIp.js";
import { classifyHostName, normalizeHost } from "./classifyHostName.js";

/**
 * Validates an allowlist (a task's allowedHosts, or `--allow-host`) against the network policy and
 * returns the normalized patterns. Beyond the syntax rules (plain host or "*." + host; no scheme,
 * port, path or IP), it refuses entries the preflight would block by name anyway, such as localhost,
 * metadata names, .internal names and single labels, so a policy that cannot work is reported early.
 */
export function validateAllowedHostsPolicy(patterns: readonly string[], basePath = ""): Result<string[]> {
  const normalized: string[] = [];
  const errors: Problem[] = [];
  for (const [index, raw] of patterns.entries()) {
    const path = `${basePath}/${index}`;
    const checked = normalizeHostPattern(raw, path);
    if (!checked.ok) {
      errors.push(checked.problem);
      continue;
    }
    const name = checked.pattern.startsWith("*.") ? checked.pattern.slice(2) : checked.pattern;
    if (canonicalIp(normalizeHost(name)) !== null) {
      errors.push({
        code: "invalid_allowed_host",
        path,
        message: `"${raw}" is an IP address; an IP may be listed only when an operator allowance (--allow-private) names that very IP`,
      });
      continue;
    }
    const refused = classifyHostName(name);
    if (refused !== null) {
      errors.push({ code: "invalid_allowed_host", path, message: `"${raw}" can never be reached: ${refused.reason}` });
      continue;
    }
    if (!normalized.includes(checked.pattern)) normalized.push(checked.pattern);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: normalized };
}

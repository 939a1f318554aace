import type { PrivateAllowance } from "../policy/parseAllowPrivate.js";
import { checkUrlWithoutDns, preflightUrl } from "../policy/preflightUrl.js";
import type { Resolver } from "../policy/resolver.js";
import { scopeAllowances } from "../policy/scopeAllowances.js";
import { validateAllowedHostsPolicy } from "../policy/validateAllowedHostsPolicy.js";
import type { NetworkGuard } from "./networkGuard.js";

export interface PolicyGuardOptions {
  resolver: Resolver;
  /** Operator allowances only; a task can never add to these. */
  allowPrivate: readonly PrivateAllowance[];
}

/** The executor's view of the network policy: layer 1 with DNS for URLs the task names, layer 2 without DNS per request. */
export function createPolicyNetworkGuard(options: PolicyGuardOptions): NetworkGuard {
  return {
    forTask(taskHosts) {
      return createPolicyNetworkGuard({ resolver: options.resolver, allowPrivate: scopeAllowances(options.allowPrivate, taskHosts) });
    },
    async preflight(url) {
      const verdict = await preflightUrl(url, { resolver: options.resolver, allowPrivate: options.allowPrivate });
      return {
        url: verdict.url ?? url,
        href: verdict.verdict === "allow" ? verdict.url : null,
        host: verdict.host,
        verdict: verdict.verdict,
        code: verdict.code,
        reason: verdict.reason,
        resolver: verdict.resolver,
        addresses: verdict.addresses,
      };
    },
    checkAllowedHosts(patterns) {
      // A host the operator explicitly allowed (--allow-private NAME:PORT or IP:PORT) may be listed even
      // if the name rules would refuse it (an intranet name under .internal, say, or the IP itself).
      const listed = patterns.filter((pattern) => scopeAllowances(options.allowPrivate, [pattern]).length === 0);
      const checked = validateAllowedHostsPolicy(listed, "/allowedHosts");
      if (checked.ok) return { allowed: true, code: "ok", reason: "every allowedHosts entry can be reached" };
      return { allowed: false, code: "invalid_allowed_host", reason: checked.errors.map((e) => e.message).join("; ") };
    },
    checkRequest(url) {
      const verdict = checkUrlWithoutDns(url, { allowPrivate: options.allowPrivate });
      return { allowed: verdict.verdict === "allow", code: verdict.code, reason: verdict.reason };
    },
  };
}

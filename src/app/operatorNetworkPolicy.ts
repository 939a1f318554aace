import { createPolicyNetworkGuard } from "../executor/policyNetworkGuard.js";
import type { NetworkGuard } from "../executor/networkGuard.js";
import { ErrandError } from "../errors/errandError.js";
import type { Result } from "../errors/result.js";
import { createDohResolver } from "../policy/dohResolver.js";
import { parseAllowPrivate } from "../policy/parseAllowPrivate.js";
import type { PrivateAllowance } from "../policy/parseAllowPrivate.js";
import type { Resolver } from "../policy/resolver.js";
import { createSystemResolver } from "../policy/systemResolver.js";

/** The operator's network policy: private allowances (flags plus ERRAND_ALLOW_PRIVATE), the resolver and the guard built from them. */
export interface OperatorNetworkPolicy {
  resolver: Resolver;
  allowPrivate: PrivateAllowance[];
  guard: NetworkGuard;
}

/**
 * The operator's private allowances: the --allow-private flags plus ERRAND_ALLOW_PRIVATE, read in
 * one place for the executor's policy and for a serving entry's check before anything listens.
 */
export function operatorAllowances(env: Readonly<Record<string, string | undefined>>, allowPrivateFlags: readonly string[]): Result<PrivateAllowance[]> {
  return parseAllowPrivate([...allowPrivateFlags, env["ERRAND_ALLOW_PRIVATE"] ?? ""]);
}

export function operatorNetworkPolicy(env: NodeJS.ProcessEnv, allowPrivateFlags: readonly string[]): OperatorNetworkPolicy {
  const allowances = operatorAllowances(env, allowPrivateFlags);
  if (!allowances.ok) throw new ErrandError("usage", allowances.errors.map((e) => e.message).join("; "));
  const resolver = chooseResolver(env);
  return { resolver, allowPrivate: allowances.value, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }) };
}

/** ERRAND_RESOLVER=doh (default) | system; ERRAND_DOH_URL picks the DNS-over-HTTPS endpoint. */
function chooseResolver(env: NodeJS.ProcessEnv): Resolver {
  const kind = env["ERRAND_RESOLVER"] ?? "doh";
  if (kind === "system") return createSystemResolver();
  if (kind !== "doh") throw new ErrandError("usage", `ERRAND_RESOLVER must be "doh" or "system", not "${kind}"`);
  const endpoint = env["ERRAND_DOH_URL"];
  return createDohResolver(endpoint === undefined || endpoint === "" ? {} : { endpoint });
}

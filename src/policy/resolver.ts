/** Why a name has no usable addresses. Every one of them blocks (errand fails closed). */
export type ResolveError = "nxdomain" | "no_answer" | "timeout" | "failure";

export type ResolveResult = { addresses: string[] } | { error: ResolveError; detail?: string };

/**
 * Turns a host name into every A and AAAA address it has. `name` is reported in verdicts as the
 * evidence of where the answers came from. Implementations never throw: failures are results.
 * Addresses are plain IP text (IPv4 dotted quad, IPv6 without brackets).
 */
export interface Resolver {
  readonly name: string;
  resolve(host: string, signal?: AbortSignal): Promise<ResolveResult>;
}

/** Human wording of a resolver error for a verdict's reason. */
export function describeResolveError(host: string, result: { error: ResolveError; detail?: string }): string {
  const what = {
    nxdomain: "does not exist (NXDOMAIN)",
    no_answer: "has no A or AAAA record",
    timeout: "did not resolve in time",
    failure: "could not be resolved",
  }[result.error];
  return `"${host}" ${what}${result.detail === undefined ? "" : ` (${result.detail})`}; errand fails closed`;
}

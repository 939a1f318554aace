import { canonicalIp, classifyIp } from "./classifyIp.js";
import { normalizeHost } from "./classifyHostName.js";
import { allowanceMatches } from "./parseAllowPrivate.js";
import type { PrivateAllowance } from "./parseAllowPrivate.js";

/** Ports any destination may use: the defaults of http and https. Others need an operator allowance. */
export const DEFAULT_PORTS: ReadonlySet<number> = new Set([80, 443]);

/**
 * Per-address evidence: "public", "blocked:<range>" (e.g. "blocked:loopback"), or
 * "allowed:<range>" when an operator allowance admitted a private address.
 */
export type AddressEvidence = { ip: string; verdict: string };

export type AddressVerdict =
  | { verdict: "allow"; evidence: AddressEvidence }
  | { verdict: "block"; code: "ip_blocked" | "dns_private_answer" | "port_blocked"; reason: string; evidence: AddressEvidence };

/**
 * Decides whether a connection to `ip`:`port` may be made, synchronously, for the proxy and the
 * in-browser guard. The address must be public and the port 80 or 443, unless an operator allowance
 * names this exact port together with the destination as it was written: this IP when it was written
 * as an IP, or the host name the address was resolved from (`host`) when it was written as a name. `defaultPorts` narrows the port rule (a URL's
 * preflight passes only its scheme's default). A block of a resolved address is reported
 * as dns_private_answer, of an IP written literally as ip_blocked.
 */
export function checkAddress(
  ip: string,
  port: number,
  allowPrivate: readonly PrivateAllowance[],
  host?: string,
  defaultPorts: ReadonlySet<number> = DEFAULT_PORTS,
): AddressVerdict {
  const address = canonicalIp(ip) ?? ip;
  const ipVerdict = classifyIp(address);
  // A destination written as a name is admitted only by an allowance for that very name; an
  // allowance for the IP it resolves to does not count, or any public name pointed at that IP
  // (rebinding included) would reach the allowed service.
  const name = host === undefined ? null : normalizeHost(host);
  const writtenAsName = name !== null && canonicalIp(name) !== address;
  const allowed = writtenAsName ? allowanceMatches(allowPrivate, name, port) : allowanceMatches(allowPrivate, address, port);
  if (allowed) {
    return { verdict: "allow", evidence: { ip: address, verdict: ipVerdict.verdict === "public" ? "public" : `allowed:${ipVerdict.range}` } };
  }
  if (ipVerdict.verdict === "blocked") {
    const viaName = writtenAsName;
    const where = ipVerdict.cidr === "" ? "" : ` (${ipVerdict.cidr})`;
    return {
      verdict: "block",
      code: viaName ? "dns_private_answer" : "ip_blocked",
      reason: viaName
        ? `"${name}" resolves to ${address}, which is ${ipVerdict.range}${where}, not a public address`
        : `${address} is ${ipVerdict.range}${where}, not a public address`,
      evidence: { ip: address, verdict: `blocked:${ipVerdict.range}` },
    };
  }
  if (!defaultPorts.has(port)) {
    return {
      verdict: "block",
      code: "port_blocked",
      reason: `port ${port} is not ${describePorts(defaultPorts)} and no operator allowance names this destination`,
      evidence: { ip: address, verdict: "public" },
    };
  }
  return { verdict: "allow", evidence: { ip: address, verdict: "public" } };
}

function describePorts(ports: ReadonlySet<number>): string {
  return [...ports].join(" or ");
}

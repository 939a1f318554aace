import { hostMatchesPattern } from "../task/normalizeHostPattern.js";
import { checkAddress, DEFAULT_PORTS } from "./checkAddress.js";
import type { AddressEvidence } from "./checkAddress.js";
import { canonicalIp } from "./classifyIp.js";
import { classifyHostName, normalizeHost } from "./classifyHostName.js";
import type { DestinationVerdict, NetworkBlockCode } from "./networkVerdict.js";
import { allowanceMatches } from "./parseAllowPrivate.js";
import type { PrivateAllowance } from "./parseAllowPrivate.js";
import { describeResolveError } from "./resolver.js";
import type { Resolver, ResolveResult } from "./resolver.js";

export interface DestinationOptions {
  /** Operator allowances (exact private host:port pairs). Never taken from a task. */
  allowPrivate?: readonly PrivateAllowance[];
  /** Normalized allowedHosts patterns the host must match; absent or empty means no allowlist. */
  allowedHosts?: readonly string[];
  /** Ports allowed without an allowance. Default 80 and 443; a URL preflight passes its scheme's default. */
  defaultPorts?: ReadonlySet<number>;
}

export interface ResolvingDestinationOptions extends DestinationOptions {
  resolver: Resolver;
  /** Upper bound on the lookup, whatever the resolver does. Default 10 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** RFC 6761: localhost names are loopback. Chromium answers them itself, so that is what they reach. */
const LOCALHOST_ADDRESSES = ["127.0.0.1", "::1"];

type Stage = { done: DestinationVerdict } | { resolve: string };

/**
 * Everything that can be decided without DNS: IP literals, name rules, the allowlist, and the port
 * rule. Returns the final verdict, or the name that still has to be resolved.
 */
function staticStage(rawHost: string, port: number, options: DestinationOptions): Stage {
  const host = normalizeHost(rawHost);
  const allowPrivate = options.allowPrivate ?? [];
  const defaultPorts = options.defaultPorts ?? DEFAULT_PORTS;
  const base = { host, port, addresses: [] as AddressEvidence[], resolver: "none" };
  const block = (code: NetworkBlockCode, reason: string, extra: Partial<DestinationVerdict> = {}): Stage => ({
    done: { ...base, verdict: "block", code, reason, ...extra },
  });

  const literal = canonicalIp(host);
  if (literal !== null) {
    const address = checkAddress(literal, port, allowPrivate, undefined, defaultPorts);
    const extra = { addresses: [address.evidence], resolver: "literal", host: literal };
    if (address.verdict === "block") return block(address.code, address.reason, extra);
    if (!matchesAllowlist(literal, options.allowedHosts)) return block("host_not_allowed", notAllowedReason(literal, options.allowedHosts), extra);
    return {
      done: {
        ...base,
        ...extra,
        verdict: "allow",
        code: "ok",
        reason: `${literal} is ${address.evidence.verdict === "public" ? "a public address" : "admitted by an operator allowance"}`,
      },
    };
  }

  const exactAllowance = allowanceMatches(allowPrivate, host, port);
  const name = classifyHostName(host);
  if (name !== null && !exactAllowance) return block("name_blocked", name.reason);
  if (!matchesAllowlist(host, options.allowedHosts)) return block("host_not_allowed", notAllowedReason(host, options.allowedHosts));
  if (!defaultPorts.has(port) && !allowPrivate.some((a) => a.port === port)) {
    return block("port_blocked", `port ${port} is not ${[...defaultPorts].join(" or ")} and no operator allowance names it`);
  }
  if (exactAllowance && (host === "localhost" || host.endsWith(".localhost"))) {
    return {
      done: {
        ...base,
        verdict: "allow",
        code: "ok",
        reason: `"${host}" is loopback, admitted by an operator allowance`,
        resolver: "localhost",
        addresses: LOCALHOST_ADDRESSES.map((ip) => ({ ip, verdict: "allowed:loopback" })),
      },
    };
  }
  return { resolve: host };
}

/**
 * Judges a destination without DNS, for a synchronous guard (the browser's request hook). A name
 * that passes every static rule is allowed with no addresses; the proxy, which resolves, has the last
 * word on where it actually leads.
 */
export function checkDestinationWithoutDns(host: string, port: number, options: DestinationOptions = {}): DestinationVerdict {
  const stage = staticStage(host, port, options);
  if ("done" in stage) return stage.done;
  return {
    verdict: "allow",
    code: "ok",
    reason: `"${stage.resolve}" passes the name rules (not resolved here)`,
    host: stage.resolve,
    port,
    addresses: [],
    resolver: "none",
  };
}

/**
 * Judges a destination completely: the static rules, then every A and AAAA answer, each of which must
 * be public (or admitted by an operator allowance for this exact destination). Any resolver failure
 * blocks. The verdict lists every address with its own verdict; a caller that connects must dial one
 * of exactly these addresses and never resolve the name again.
 */
export async function checkDestination(host: string, port: number, options: ResolvingDestinationOptions): Promise<DestinationVerdict> {
  const stage = staticStage(host, port, options);
  if ("done" in stage) return stage.done;
  const name = stage.resolve;
  const resolver = options.resolver.name;
  const answer = await resolveWithin(options.resolver, name, options.timeoutMs ?? 10_000, options.signal);
  if ("error" in answer || answer.addresses.length === 0) {
    const failure = "error" in answer ? answer : { error: "no_answer" as const };
    return { verdict: "block", code: "dns_failed", reason: describeResolveError(name, failure), host: name, port, addresses: [], resolver };
  }
  const checks = answer.addresses.map((ip) => checkAddress(ip, port, options.allowPrivate ?? [], name, options.defaultPorts ?? DEFAULT_PORTS));
  const addresses = checks.map((c) => c.evidence);
  const refused = checks.find((c) => c.verdict === "block");
  if (refused !== undefined && refused.verdict === "block") {
    return { verdict: "block", code: refused.code, reason: refused.reason, host: name, port, addresses, resolver };
  }
  const admitted = addresses.some((a) => a.verdict !== "public");
  return {
    verdict: "allow",
    code: "ok",
    reason: admitted ? `"${name}" is admitted by an operator allowance` : `"${name}" resolves only to public addresses`,
    host: name,
    port,
    addresses,
    resolver,
  };
}

async function resolveWithin(resolver: Resolver, host: string, timeoutMs: number, signal?: AbortSignal): Promise<ResolveResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ResolveResult>((resolve) => {
    timer = setTimeout(() => resolve({ error: "timeout" }), timeoutMs);
  });
  try {
    return await Promise.race([resolver.resolve(host, signal).catch((): ResolveResult => ({ error: "failure", detail: "resolver threw" })), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function matchesAllowlist(host: string, patterns: readonly string[] | undefined): boolean {
  if (patterns === undefined || patterns.length === 0) return true;
  return patterns.some((pattern) => hostMatchesPattern(host, pattern));
}

function notAllowedReason(host: string, patterns: readonly string[] | undefined): string {
  const list = (patterns ?? []).slice(0, 5).join(", ");
  return `"${host}" is not among the allowed hosts (${list}${(patterns ?? []).length > 5 ? ", ..." : ""})`;
}

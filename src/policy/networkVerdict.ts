import type { AddressEvidence } from "./checkAddress.js";

/** The codes a network-policy refusal carries; each is documented in src/errors/errorCodes.ts. */
export type NetworkBlockCode =
  | "invalid_url"
  | "url_scheme_not_allowed"
  | "userinfo_blocked"
  | "port_blocked"
  | "ip_blocked"
  | "name_blocked"
  | "host_not_allowed"
  | "dns_failed"
  | "dns_private_answer";

export const NETWORK_BLOCK_CODES: readonly NetworkBlockCode[] = [
  "invalid_url",
  "url_scheme_not_allowed",
  "userinfo_blocked",
  "port_blocked",
  "ip_blocked",
  "name_blocked",
  "host_not_allowed",
  "dns_failed",
  "dns_private_answer",
];

/** A destination (host and port) judged by the policy, with the evidence behind the judgement. */
export interface DestinationVerdict {
  verdict: "allow" | "block";
  /** "ok" when allowed. */
  code: "ok" | NetworkBlockCode;
  /** One sentence for the person or assistant reading the receipt. */
  reason: string;
  /** Lowercase, no trailing dot, IPv6 without brackets. */
  host: string;
  port: number;
  /** Every address considered, each with its own verdict; empty when the check stopped earlier. */
  addresses: AddressEvidence[];
  /** Resolver name, "literal" for an IP written in the URL, "none" when nothing was resolved. */
  resolver: string;
}

/** A URL judged by the preflight. `url` is the normalized href to hand the browser (null if unparseable). */
export interface PreflightVerdict {
  verdict: "allow" | "block";
  code: "ok" | NetworkBlockCode;
  reason: string;
  url: string | null;
  host: string;
  addresses: AddressEvidence[];
  resolver: string;
}

/** A host name refused by name, before and whatever DNS says, or null when the name may be resolved. */
export type HostNameVerdict = { code: "name_blocked"; reason: string } | null;

/** Names that reach cloud instance metadata services from inside the cloud. */
const METADATA_NAMES: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.amazonaws.com",
  "instance-data",
  "instance-data.ec2.internal",
]);

/**
 * Suffixes that only ever name private or local things: RFC 6761 localhost (Chromium answers these
 * with loopback itself, whatever the resolver says), ICANN's private-use .internal, mDNS .local,
 * RFC 8375 home.arpa, and the common .localdomain, .lan and Kubernetes .svc.
 */
const PRIVATE_SUFFIXES: readonly string[] = ["localhost", "internal", "local", "home.arpa", "localdomain", "lan", "svc"];

/**
 * Removes one trailing dot (the DNS root), lowercases and strips IPv6 brackets, so that
 * "Example.COM." and "example.com" are the same host for every rule.
 */
export function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) return h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/**
 * Name rules for a normalized host name (not an IP literal): localhost and *.localhost, metadata
 * names, private-use suffixes, single-label names (resolved through search domains to anything),
 * empty labels such as "127.0.0.1.." (browsers accept several trailing dots, DNS does not), and names
 * whose last label is a number (browsers may read them as IPv4).
 */
export function classifyHostName(name: string): HostNameVerdict {
  if (name === "") return refuse("the host is empty");
  if (name.split(".").some((label) => label === "")) {
    return refuse(`"${name}" has an empty label (extra dots); browsers and resolvers read such names differently`);
  }
  if (METADATA_NAMES.has(name)) return refuse(`"${name}" is a cloud metadata service name`);
  const suffix = PRIVATE_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (suffix !== undefined) return refuse(`"${name}" is under .${suffix}, which only names local or private hosts`);
  if (!name.includes(".")) return refuse(`"${name}" is a single-label name, which resolves through local search domains`);
  const last = name.slice(name.lastIndexOf(".") + 1);
  if (/^(?:\d+|0x[0-9a-f]*)$/.test(last)) return refuse(`"${name}" ends in a number and may be read as an IP address`);
  return null;
}

function refuse(reason: string): HostNameVerdict {
  return { code: "name_blocked", reason };
}

import { BlockList, isIP } from "node:net";
import { ConfigError } from "../../config/configError.js";

/**
 * Who is on the other end, for per-address limits (owner-password lockout, failure limits,
 * pending consents). Behind a reverse proxy or tunnel every request comes from the proxy, so the
 * client is read from X-Forwarded-For, but only when the peer is a proxy the operator trusts
 * (ERRAND_TRUSTED_PROXIES): anyone else could write any address into that header.
 */
export interface TrustedProxies {
  /** True when this peer address is a trusted proxy. */
  has(address: string): boolean;
  /** The entries as given, for messages. */
  readonly entries: readonly string[];
}

export class TrustedProxiesError extends ConfigError {}

function bare(address: string): string {
  const trimmed = address.trim();
  const unbracketed = trimmed.startsWith("[") ? trimmed.slice(1, trimmed.indexOf("]") === -1 ? undefined : trimmed.indexOf("]")) : trimmed;
  // "203.0.113.5:4711" (an IPv4 address with a port) is written by some proxies.
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(unbracketed);
  const plain = v4WithPort?.[1] ?? unbracketed;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(plain);
  return mapped?.[1] ?? plain;
}

/** ERRAND_TRUSTED_PROXIES: comma-separated IP addresses or CIDR ranges (203.0.113.7, 10.0.0.0/8, fd00::/8). */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const list = new BlockList();
  const entries = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const entry of entries) {
    const [ip = "", prefix] = entry.split("/");
    const family = isIP(ip);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) {
      throw new TrustedProxiesError(
        `ERRAND_TRUSTED_PROXIES: "${entry.slice(0, 60)}" is not an IP address or CIDR range (write 203.0.113.7, 10.0.0.0/8 or fd00::/8).`,
      );
    }
    list.addSubnet(ip, bits, family === 6 ? "ipv6" : "ipv4");
  }
  return {
    entries,
    has(address) {
      const ip = bare(address);
      const family = isIP(ip);
      return family !== 0 && list.check(ip, family === 6 ? "ipv6" : "ipv4");
    },
  };
}

/**
 * The client's address: the peer itself, unless the peer is a trusted proxy; then X-Forwarded-For
 * is read from the right (the entry the trusted proxy appended) leftwards past other trusted
 * proxies, and the first untrusted address is the client. A malformed entry stops the walk at the
 * last address known to be real.
 */
export function resolveClientAddress(peer: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  let client = bare(peer);
  if (!trusted.has(client) || forwardedFor === undefined) return client;
  const hops = forwardedFor.split(",").map(bare).reverse();
  for (const hop of hops) {
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/**
 * The key limits are counted under: IPv4 addresses as they are, IPv6 addresses by their /64
 * (one subscriber usually holds a whole /64, so counting single IPv6 addresses would give an
 * attacker billions of fresh allowances).
 */
export function addressKey(address: string): string {
  const ip = bare(address);
  if (isIP(ip) !== 6) return ip;
  const [head = "", tail = ""] = ip.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = ip.includes("::") ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

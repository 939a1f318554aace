import ipaddr from "ipaddr.js";

/** What the policy thinks of one IP address. `range` names the special-purpose block it fell in. */
export type IpVerdict = { verdict: "public" } | { verdict: "blocked"; range: string; cidr: string; code: "ip_blocked" };

type Block<A> = { range: string; cidr: string; network: A; bits: number };

function v4(range: string, cidr: string): Block<ipaddr.IPv4> {
  const [network, bits] = ipaddr.IPv4.parseCIDR(cidr);
  return { range, cidr, network, bits };
}

function v6(range: string, cidr: string): Block<ipaddr.IPv6> {
  const [network, bits] = ipaddr.IPv6.parseCIDR(cidr);
  return { range, cidr, network, bits };
}

/**
 * IPv4 blocks refused as destinations: the IANA IPv4 special-purpose registry (every entry, including
 * the few marked globally reachable such as AS112 and AMT, which no web page lives on), plus
 * multicast 224/4 and the deprecated 6to4 relay anycast block. More specific blocks come first so the
 * reported range is the most precise one.
 */
const IPV4_BLOCKS: readonly Block<ipaddr.IPv4>[] = [
  v4("broadcast", "255.255.255.255/32"),
  v4("this-network", "0.0.0.0/8"),
  v4("private", "10.0.0.0/8"),
  v4("shared-cgnat", "100.64.0.0/10"),
  v4("loopback", "127.0.0.0/8"),
  v4("link-local", "169.254.0.0/16"),
  v4("private", "172.16.0.0/12"),
  v4("ietf-protocol-assignments", "192.0.0.0/24"),
  v4("documentation", "192.0.2.0/24"),
  v4("as112", "192.31.196.0/24"),
  v4("amt", "192.52.193.0/24"),
  v4("6to4-relay-anycast", "192.88.99.0/24"),
  v4("private", "192.168.0.0/16"),
  v4("as112", "192.175.48.0/24"),
  v4("benchmarking", "198.18.0.0/15"),
  v4("documentation", "198.51.100.0/24"),
  v4("documentation", "203.0.113.0/24"),
  v4("multicast", "224.0.0.0/4"),
  v4("reserved", "240.0.0.0/4"),
];

/**
 * IPv6 blocks refused as destinations. Every address outside 2000::/3 is refused in any case (see
 * classifyIp); the blocks below that lie outside it only give the refusal a precise name. Addresses
 * that embed IPv4 (mapped, compatible, NAT64, 6to4, Teredo) are refused as whole prefixes rather than
 * unwrapped: the embedded address is not what a browser would dial on every network.
 */
const IPV6_BLOCKS: readonly Block<ipaddr.IPv6>[] = [
  v6("unspecified", "::/128"),
  v6("loopback", "::1/128"),
  v6("ipv4-mapped", "::ffff:0:0/96"),
  v6("ipv4-compatible", "::/96"),
  v6("ipv4-translated", "::ffff:0:0:0/96"),
  v6("nat64", "64:ff9b::/96"),
  v6("nat64-local", "64:ff9b:1::/48"),
  v6("discard", "100::/64"),
  v6("dummy-prefix", "100:0:0:1::/64"),
  v6("teredo", "2001::/32"),
  v6("ietf-protocol-assignments", "2001::/23"),
  v6("documentation", "2001:db8::/32"),
  v6("6to4", "2002::/16"),
  v6("as112", "2620:4f:8000::/48"),
  v6("documentation", "3fff::/20"),
  v6("segment-routing", "5f00::/16"),
  v6("unique-local", "fc00::/7"),
  v6("link-local", "fe80::/10"),
  v6("site-local", "fec0::/10"),
  v6("multicast", "ff00::/8"),
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

const IPV4_TEXT = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6_TEXT = /^[0-9a-fA-F:.]{2,45}$/;

/**
 * Parses an IP address written the plain way: four decimal octets without leading zeros, or IPv6 text
 * without brackets or zone. Anything else (short forms, hex, octal, "[::1]", "fe80::1%eth0") is not an
 * IP here; URLs must pass through WHATWG parsing first, which produces exactly these forms.
 */
export function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (IPV4_TEXT.test(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(":") || !IPV6_TEXT.test(text)) return null;
  const hex = text.includes(".") ? trailingQuadToHex(text) : text;
  if (hex === null || !ipaddr.IPv6.isValid(hex)) return null;
  return ipaddr.IPv6.parse(hex);
}

/**
 * Rewrites IPv6 text ending in a dotted quad ("::1.2.3.4") as pure hex ("::102:304"). ipaddr.js
 * 2.5.0 reads "::a.b.c.d" as IPv4-mapped (::ffff:a.b.c.d), a different address, so it is never
 * handed the mixed notation.
 */
function trailingQuadToHex(text: string): string | null {
  const split = text.lastIndexOf(":");
  const quad = text.slice(split + 1);
  if (!IPV4_TEXT.test(quad)) return null;
  const [a, b, c, d] = ipaddr.IPv4.parse(quad).octets as [number, number, number, number];
  return `${text.slice(0, split + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** The canonical text of an IP (RFC 5952 for IPv6), or null when the text is not a plain IP. */
export function canonicalIp(text: string): string | null {
  return parseIp(text)?.toString() ?? null;
}

/** True for plain IPv4/IPv6 text as parseIp reads it. */
export function isIpLiteral(text: string): boolean {
  return parseIp(text) !== null;
}

/**
 * Classifies an IP address against the special-purpose registries. Only addresses that are ordinary
 * global unicast are "public"; everything else, including text that is not a plain IP, is blocked.
 * ipaddr.js range names are deliberately not used: it calls IPv4-compatible addresses, space outside
 * 2000::/3 and 100:0:0:1::/64 "unicast".
 */
export function classifyIp(text: string): IpVerdict {
  const address = parseIp(text);
  if (address === null) return { verdict: "blocked", range: "not-an-ip", cidr: "", code: "ip_blocked" };
  if (address instanceof ipaddr.IPv4) {
    const hit = IPV4_BLOCKS.find((b) => address.match(b.network, b.bits));
    return hit === undefined ? { verdict: "public" } : blocked(hit);
  }
  const hit = IPV6_BLOCKS.find((b) => address.match(b.network, b.bits));
  if (hit !== undefined) return blocked(hit);
  if (!address.match(GLOBAL_UNICAST)) return { verdict: "blocked", range: "outside-global-unicast", cidr: "2000::/3", code: "ip_blocked" };
  return { verdict: "public" };
}

function blocked(b: Block<unknown>): IpVerdict {
  return { verdict: "blocked", range: b.range, cidr: b.cidr, code: "ip_blocked" };
}

import { createStaticResolver } from "../../src/policy/staticResolver.js";

/**
 * Invented DNS answers for the preflight tests. No test ever resolves a real name: names are mapped
 * here to the addresses an attacker (or an honest site) would publish.
 */
export const FIXTURE_DNS: Record<string, string[]> = {
  "example.com": ["93.184.215.14"],
  "www.example.com": ["93.184.215.14"],
  "example.org": ["93.184.215.14"],
  "a.example.org": ["93.184.215.14"],
  "a.b.example.org": ["93.184.215.14"],
  "evil-example.org": ["93.184.215.14"],
  "example.org.evil.com": ["93.184.215.14"],
  "public.test": ["93.184.215.14"],
  "v6public.test": ["2606:4700::6810:84e5"],
  "dualstack.test": ["93.184.215.14", "2606:4700::6810:84e5"],
  "manyanswers.test": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "2001:4860:4860::8888"],
  "loopback.test": ["127.0.0.1"],
  "loopback6.test": ["::1"],
  "mixed.test": ["8.8.8.8", "10.0.0.1"],
  "mixed-last.test": ["8.8.8.8", "9.9.9.9", "192.168.1.1"],
  "mixed6.test": ["8.8.8.8", "::1"],
  "metadata-ip.test": ["169.254.169.254"],
  "alibaba-metadata.test": ["100.100.100.200"],
  "aws-v6-metadata.test": ["fd00:ec2::254"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "mapped-public.test": ["::ffff:8.8.8.8"],
  "compat.test": ["::7f00:1"],
  "nat64.test": ["64:ff9b::808:808"],
  "sixtofour.test": ["2002:c0a8:101::1"],
  "teredo.test": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  "cgnat.test": ["100.64.0.1"],
  "ula.test": ["fd12:3456:789a::1"],
  "linklocal6.test": ["fe80::1"],
  "zero.test": ["0.0.0.0"],
  "unspecified6.test": ["::"],
  "broadcast.test": ["255.255.255.255"],
  "multicast.test": ["224.0.0.251"],
  "doc.test": ["192.0.2.10"],
  "doc6.test": ["2001:db8::1"],
  "benchmark.test": ["198.18.0.5"],
  "reserved.test": ["240.0.0.1"],
  "outside2000.test": ["4000::1"],
  "empty.test": [],
  "127.0.0.1.nip.io": ["127.0.0.1"],
  "10.0.0.1.sslip.io": ["10.0.0.1"],
  "7f000001.c0a80001.rbndr.us": ["127.0.0.1"],
  "localtest.me": ["127.0.0.1"],
  "intranet.corp": ["10.1.2.3"],
  "other.test": ["127.0.0.1"],
  "private-other.test": ["10.0.0.1"],
};

export function fixtureResolver() {
  return createStaticResolver(FIXTURE_DNS, "fixture");
}

/** Writes a 32-bit address as dotted decimal. */
export function dotted(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

export function toUint32(ip: string): number {
  return ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}

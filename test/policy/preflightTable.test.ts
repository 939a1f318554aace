import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { preflightUrl } from "../../src/policy/preflightUrl.js";
import type { PreflightOptions } from "../../src/policy/preflightUrl.js";
import type { PrivateAllowance } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { fixtureResolver, toUint32 } from "./policyFixtures.js";

/**
 * The attacker's table: several hundred URLs built from the anchors in the network-safety reference
 * (WHATWG IPv4 encodings, IPv6 special ranges and embeddings, userinfo and backslash tricks, schemes,
 * ports, trailing dots, metadata and local names, hostile DNS answers) and ordinary URLs that must pass.
 * `expect` is "allow" or the block code; `host` (optional) is the normalized host the verdict must name.
 */
type Case = { url: string; expect: string; host?: string; href?: string; options?: Partial<PreflightOptions> };

/** A resolver with no names at all: any case that needs DNS under it fails, proving no lookup happened. */
const noDns = createStaticResolver({}, "no-dns");

// --- IPv4 literals in every form WHATWG accepts -------------------------------------------------

const BLOCKED_V4 = [
  "127.0.0.1",
  "127.255.255.254",
  "127.0.0.0",
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.0.1",
  "192.168.255.255",
  "169.254.169.254",
  "169.254.0.1",
  "100.64.0.1",
  "100.127.255.254",
  "100.100.100.200",
  "192.0.0.9",
  "192.0.0.170",
  "192.0.2.1",
  "198.18.0.1",
  "198.19.255.255",
  "198.51.100.7",
  "203.0.113.9",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "192.88.99.1",
  "192.31.196.1",
  "192.175.48.1",
  "192.52.193.1",
];
const PUBLIC_V4 = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "100.63.255.254",
  "100.128.0.1",
  "172.15.255.255",
  "172.32.0.1",
  "192.167.255.255",
  "192.169.0.1",
  "11.0.0.1",
  "126.255.255.255",
  "128.0.0.1",
  "223.255.255.255",
  "198.17.255.255",
  "198.20.0.1",
  "169.253.255.255",
  "169.255.0.1",
  "9.255.255.255",
  "1.0.0.1",
];

const FULLWIDTH_DIGITS = "０１２３４５６７８９";
const fullwidth = (text: string): string => text.replace(/\d/g, (d) => FULLWIDTH_DIGITS[Number(d)] ?? d);
const percentAll = (text: string): string => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`).join("");

/** Every spelling of one IPv4 address that WHATWG turns back into the canonical dotted quad. */
function ipv4Spellings(ip: string): string[] {
  const octets = ip.split(".").map(Number) as [number, number, number, number];
  const [a, b, c, d] = octets;
  const n = toUint32(ip);
  return [
    ip,
    String(n),
    `0x${n.toString(16)}`,
    `0X${n.toString(16).toUpperCase()}`,
    `0x${n.toString(16).padStart(16, "0")}`,
    `0${n.toString(8)}`,
    octets.map((o) => `0${o.toString(8)}`).join("."),
    octets.map((o) => `0x${o.toString(16)}`).join("."),
    `0x${a.toString(16)}.0${b.toString(8)}.${c}.${d}`,
    `${a}.${b}.${c * 256 + d}`,
    `${a}.${b * 65536 + c * 256 + d}`,
    `0x${a.toString(16)}.${b * 65536 + c * 256 + d}`,
    octets.map((o) => `0000${o.toString(8)}`).join("."),
    fullwidth(ip),
    ip.replaceAll(".", "\u3002"),
    ip.replaceAll(".", "\uFF0E"),
    ip.replaceAll(".", "\uFF61"),
    percentAll(ip),
    `${ip}.`,
    `${ip.replaceAll(".", "%2E")}`,
  ];
}

const ipv4Cases: Case[] = [];
for (const ip of BLOCKED_V4) {
  for (const spelling of ipv4Spellings(ip)) ipv4Cases.push({ url: `http://${spelling}/`, expect: "ip_blocked", host: ip });
  ipv4Cases.push({ url: `https://${ip}:443/path?q=1#frag`, expect: "ip_blocked", host: ip });
}
for (const ip of PUBLIC_V4) {
  for (const spelling of ipv4Spellings(ip)) ipv4Cases.push({ url: `http://${spelling}/`, expect: "allow", host: ip });
}

const ipv4Rejected: Case[] = [
  "http://4294967296/",
  "http://0x100000000/",
  "http://0x17f000001/",
  "http://256.0.0.1/",
  "http://1.2.3.256/",
  "http://1.2.65536/",
  "http://1.2.3.4.5/",
  "http://foo.123/",
  "http://foo.0x1/",
  "http://1.2.3.4.5.6/",
].map((url): Case => ({ url, expect: "invalid_url" }));
// Not numeric in its last label, so WHATWG reads it as a name; with no such name in DNS it fails closed.
ipv4Rejected.push({ url: "http://127.0.0.0x1g/", expect: "dns_failed", host: "127.0.0.0x1g" });

// --- IPv6 literals ------------------------------------------------------------------------------

const ipv6Blocked: Array<[string, string]> = [
  ["::", "unspecified"],
  ["0:0:0:0:0:0:0:0", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "ipv4-mapped"],
  ["::ffff:7f00:1", "ipv4-mapped"],
  ["0:0:0:0:0:FFFF:127.0.0.1", "ipv4-mapped"],
  ["::ffff:169.254.169.254", "ipv4-mapped"],
  ["::ffff:a9fe:a9fe", "ipv4-mapped"],
  ["::FFFF:A9FE:A9FE", "ipv4-mapped"],
  ["::ffff:8.8.8.8", "ipv4-mapped"],
  ["::ffff:10.0.0.1", "ipv4-mapped"],
  ["::ffff:ffff", "ipv4-compatible"],
  ["::127.0.0.1", "ipv4-compatible"],
  ["::7f00:1", "ipv4-compatible"],
  ["::169.254.169.254", "ipv4-compatible"],
  ["::a9fe:a9fe", "ipv4-compatible"],
  ["::a00:1", "ipv4-compatible"],
  ["::2", "ipv4-compatible"],
  ["::8.8.8.8", "ipv4-compatible"],
  ["::ffff:0:127.0.0.1", "ipv4-translated"],
  ["64:ff9b::127.0.0.1", "nat64"],
  ["64:ff9b::7f00:1", "nat64"],
  ["64:ff9b::808:808", "nat64"],
  ["64:ff9b::8.8.8.8", "nat64"],
  ["64:ff9b::a9fe:a9fe", "nat64"],
  ["64:ff9b:1::1", "nat64-local"],
  ["64:ff9b:1:ffff::a00:1", "nat64-local"],
  ["100::", "discard"],
  ["100::1", "discard"],
  ["100:0:0:1::1", "dummy-prefix"],
  ["2001::1", "teredo"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
  ["2001:0:c000:221::", "teredo"],
  ["2001:1::1", "ietf-protocol-assignments"],
  ["2001:1::2", "ietf-protocol-assignments"],
  ["2001:1::3", "ietf-protocol-assignments"],
  ["2001:2::1", "ietf-protocol-assignments"],
  ["2001:3::1", "ietf-protocol-assignments"],
  ["2001:4:112::1", "ietf-protocol-assignments"],
  ["2001:10::1", "ietf-protocol-assignments"],
  ["2001:20::1", "ietf-protocol-assignments"],
  ["2001:30::1", "ietf-protocol-assignments"],
  ["2001:1ff:ffff::1", "ietf-protocol-assignments"],
  ["2001:db8::1", "documentation"],
  ["2001:DB8:0:0:0:0:0:1337", "documentation"],
  ["2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "documentation"],
  ["2002::1", "6to4"],
  ["2002:7f00:1::", "6to4"],
  ["2002:c0a8:ffff::", "6to4"],
  ["2002:808:808::1", "6to4"],
  ["2002:a9fe:a9fe::1", "6to4"],
  ["2620:4f:8000::1", "as112"],
  ["3fff::1", "documentation"],
  ["3fff:fff:ffff::1", "documentation"],
  ["5f00::1", "segment-routing"],
  ["fc00::1", "unique-local"],
  ["fd00::1", "unique-local"],
  ["fd00:ec2::254", "unique-local"],
  ["fdff:ffff::1", "unique-local"],
  ["fe80::1", "link-local"],
  ["fe80::a9fe:a9fe", "link-local"],
  ["febf:ffff::1", "link-local"],
  ["fec0::1", "site-local"],
  ["FEC0:CCCC::", "site-local"],
  ["feff::1", "site-local"],
  ["ff00::1", "multicast"],
  ["ff02::1", "multicast"],
  ["ff02::2", "multicast"],
  ["ff05::1:3", "multicast"],
  ["4000::1", "outside-global-unicast"],
  ["e000::1", "outside-global-unicast"],
  ["fe00::1", "outside-global-unicast"],
  ["1::1", "outside-global-unicast"],
  ["64:ff9c::1", "outside-global-unicast"],
  ["8000::", "outside-global-unicast"],
  ["c000::1", "outside-global-unicast"],
  ["1fff:ffff::1", "outside-global-unicast"],
  ["101::1", "outside-global-unicast"],
];
const ipv6Public = [
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001:81c::200e",
  "2400:cb00:2048:1::c629:d7a2",
  "2c0f:fb50:4003::1",
  "2001:200::1",
  "2620:4f:7fff::1",
  "2620:4f:8001::1",
  "2003::1",
  "3ffe::1",
  "3000::1",
  "2001:4860::1",
  "2600::",
  "2001:0DB9::1",
  "3fff:1000::1",
];
const ipv6Cases: Case[] = [
  ...ipv6Blocked.flatMap(([ip, _range]): Case[] => [
    { url: `http://[${ip}]/`, expect: "ip_blocked" },
    { url: `https://[${ip}]:443/x`, expect: "ip_blocked" },
  ]),
  ...ipv6Public.map((ip): Case => ({ url: `https://[${ip}]/`, expect: "allow" })),
  ...[
    "http://[fe80::1%25eth0]/",
    "http://[fe80::1%eth0]/",
    "http://[v1.x]/",
    "http://[::1/",
    "http://[]/",
    "http://[]:123/",
    "http://::1/",
    "http://[::ﬀﬀ:7f00:1]/",
    "http://[::1]]/",
    "http://[:::1]/",
    "http://[1:2:3:4:5:6:7:8:9]/",
    "http://[::127.0.0.1.1]/",
    "http://[::1]x/",
  ].map((url): Case => ({ url, expect: "invalid_url" })),
];

// --- userinfo, backslashes and other parser tricks ----------------------------------------------

const trickCases: Case[] = [
  { url: "http://user@example.com/", expect: "userinfo_blocked" },
  { url: "http://user:pass@example.com/", expect: "userinfo_blocked", href: "http://example.com/" },
  { url: "http://:pass@example.com/", expect: "userinfo_blocked" },
  { url: "http://example.com@127.0.0.1/", expect: "userinfo_blocked", host: "127.0.0.1" },
  { url: "http://127.0.0.1@example.com/", expect: "userinfo_blocked", host: "example.com" },
  { url: "http://example.com:80@127.0.0.1/", expect: "userinfo_blocked" },
  { url: "http://a@b@127.0.0.1/", expect: "userinfo_blocked", host: "127.0.0.1" },
  { url: "http://127.1.1.1:80@@127.2.2.2:80/", expect: "userinfo_blocked", host: "127.2.2.2" },
  { url: "http://1.1.1.1 &@2.2.2.2# @3.3.3.3/", expect: "userinfo_blocked", host: "2.2.2.2" },
  { url: "http://example.com[@127.0.0.1/", expect: "userinfo_blocked", host: "127.0.0.1" },
  { url: "http://example.com%2f@127.0.0.1/", expect: "userinfo_blocked", host: "127.0.0.1" },
  { url: "http://@example.com/", expect: "allow", host: "example.com", href: "http://example.com/" },
  { url: "http://example.com#@127.0.0.1/", expect: "allow", host: "example.com" },
  { url: "http://example.com?@127.0.0.1/", expect: "allow", host: "example.com" },
  { url: "http://example.com\\@127.0.0.1/", expect: "allow", host: "example.com", href: "http://example.com/@127.0.0.1/" },
  { url: "http://127.0.0.1\\@example.com/", expect: "ip_blocked", host: "127.0.0.1" },
  { url: "http://example.com:443\\@127.0.0.1/", expect: "port_blocked", host: "example.com" },
  { url: "http://example.com%40127.0.0.1/", expect: "invalid_url" },
  { url: "http:\\\\127.0.0.1\\", expect: "ip_blocked", host: "127.0.0.1" },
  { url: "http:/127.0.0.1/", expect: "ip_blocked", host: "127.0.0.1" },
  { url: "http:127.0.0.1", expect: "ip_blocked", host: "127.0.0.1" },
  { url: "http:/0/", expect: "ip_blocked", host: "0.0.0.0" },
  { url: "http://0:80", expect: "ip_blocked", host: "0.0.0.0" },
  { url: "http://0x/", expect: "ip_blocked", host: "0.0.0.0" },
  { url: "http://0x.0x.0x.0x/", expect: "ip_blocked", host: "0.0.0.0" },
  { url: "ht\ttp://127.0.0.1/", expect: "ip_blocked" },
  { url: "htt\np://127.0.0.1/", expect: "ip_blocked" },
  { url: " http://127.0.0.1/", expect: "ip_blocked" },
  { url: "\u0000http://127.0.0.1/", expect: "ip_blocked" },
  { url: "\u001fhttp://127.0.0.1/ ", expect: "ip_blocked" },
  { url: "http://127.0.0.1\t/", expect: "ip_blocked" },
  { url: "http://exa\tmple.com/", expect: "allow", host: "example.com" },
  { url: "http://example.com/\\..\\..\\127.0.0.1", expect: "allow", host: "example.com" },
  { url: "http://example.com/http://127.0.0.1/", expect: "allow", host: "example.com" },
  { url: "http://example.com/?url=http://169.254.169.254/", expect: "allow", host: "example.com" },
  { url: "//127.0.0.1/", expect: "invalid_url" },
  { url: "/relative/path", expect: "invalid_url" },
  { url: "127.0.0.1", expect: "invalid_url" },
  { url: "", expect: "invalid_url" },
  { url: "http://", expect: "invalid_url" },
  { url: "http:///", expect: "invalid_url" },
  { url: "http://exa mple.com/", expect: "invalid_url" },
  { url: "http://exa<mple.com/", expect: "invalid_url" },
  { url: "http://%00.example.com/", expect: "invalid_url" },
  { url: "http://a%2F127.0.0.1/", expect: "invalid_url" },
];

// --- schemes ------------------------------------------------------------------------------------

const schemeCases: Case[] = [
  "javascript:alert(1)",
  "javascript://example.com/%0aalert(1)",
  "JAVASCRIPT://example.com/",
  "data:text/html,<b>x</b>",
  "file:///etc/passwd",
  "file://127.0.0.1/etc/passwd",
  "file://localhost/etc/hosts",
  "ftp://example.com/",
  "ws://example.com/",
  "wss://example.com/",
  "gopher://127.0.0.1:70/_x",
  "dict://127.0.0.1:11211/stat",
  "ldap://127.0.0.1/",
  "sftp://example.com/",
  "tftp://example.com/x",
  "blob:https://example.com/0b1e4c0e-0000-4000-8000-000000000000",
  "about:blank",
  "chrome://settings",
  "chrome-extension://abcdefghijklmnop/x",
  "view-source:https://example.com/",
  "mailto:someone@example.com",
  "jar:http://example.com!/x",
  "netdoc:///etc/passwd",
  "httpx://example.com/",
  "http+unix://%2Fvar%2Frun%2Fdocker.sock/",
  "https-://example.com/",
  "urn:isbn:0",
].map((url): Case => ({ url, expect: "url_scheme_not_allowed" }));
schemeCases.push(
  { url: "HTTP://EXAMPLE.COM/", expect: "allow", host: "example.com", href: "http://example.com/" },
  { url: "HtTpS://Example.Com/Path", expect: "allow", host: "example.com", href: "https://example.com/Path" },
);

// --- ports --------------------------------------------------------------------------------------

const portCases: Case[] = [
  { url: "http://example.com:80/", expect: "allow", href: "http://example.com/" },
  { url: "http://example.com:0080/", expect: "allow", href: "http://example.com/" },
  { url: "https://example.com:443/", expect: "allow", href: "https://example.com/" },
  { url: "https://example.com:000443/", expect: "allow" },
  { url: "http://example.com:/", expect: "allow" },
  ...[
    "http://example.com:443/",
    "https://example.com:80/",
    "http://example.com:8080/",
    "https://example.com:8443/",
    "http://example.com:22/",
    "http://example.com:25/",
    "http://example.com:6379/",
    "http://example.com:0/",
    "http://example.com:1/",
    "http://example.com:65535/",
    "http://example.com:3000/",
    "https://example.com:4443/",
    "http://93.184.215.14:8080/",
    "http://[2606:4700:4700::1111]:8080/",
  ].map((url): Case => ({ url, expect: "port_blocked" })),
  ...["http://example.com:65536/", "http://example.com:-1/", "http://example.com:80a/", "http://example.com:99999999999/", "http://example.com: 80/"].map(
    (url): Case => ({ url, expect: "invalid_url" }),
  ),
];

// --- trailing dots ------------------------------------------------------------------------------

const dotCases: Case[] = [
  { url: "http://example.com./", expect: "allow", host: "example.com", href: "http://example.com./" },
  { url: "http://EXAMPLE.COM./", expect: "allow", host: "example.com" },
  { url: "http://example.com../", expect: "name_blocked" },
  { url: "http://example.com.../", expect: "name_blocked" },
  { url: "http://.example.com/", expect: "name_blocked" },
  { url: "http://www..example.com/", expect: "name_blocked" },
  { url: "http://127.0.0.1./", expect: "ip_blocked", host: "127.0.0.1" },
  { url: "http://127.0.0.1../", expect: "name_blocked" },
  { url: "http://127.0.0.1.../", expect: "name_blocked" },
  { url: "http://169.254.169.254../", expect: "name_blocked" },
  { url: "http://0x7f.1../", expect: "name_blocked" },
  { url: "http://localhost./", expect: "name_blocked" },
  { url: "http://localhost../", expect: "name_blocked" },
  { url: "http://metadata.google.internal./", expect: "name_blocked" },
  { url: "http://%2e%2e/", expect: "name_blocked" },
  { url: "http://./", expect: "name_blocked" },
];

// --- names blocked by name ----------------------------------------------------------------------

const nameCases: Case[] = [
  "localhost",
  "LOCALHOST",
  "LocalHost",
  "foo.localhost",
  "a.b.localhost",
  "xn--80ak6aa92e.localhost",
  "localhost.localdomain",
  "ｌｏｃａｌｈｏｓｔ",
  "local\u00ADhost",
  "local\u200Bhost",
  "localhoﬆ",
  "LOCALHOST.",
  "127.0.0.1.localhost",
  "metadata",
  "METADATA",
  "metadata.google.internal",
  "METADATA.GOOGLE.INTERNAL",
  "metadata.goog",
  "metadata.amazonaws.com",
  "instance-data",
  "instance-data.ec2.internal",
  "anything.internal",
  "a.b.c.internal",
  "compute.internal",
  "printer.local",
  "mybox.local",
  "router.home.arpa",
  "nas.lan",
  "kubernetes.default.svc",
  "api.default.svc.cluster.local",
  "intranet",
  "wpad",
  "printer",
  "router",
  "a",
  "xn--nxasmq6b",
  "\u0430pple",
].map((host): Case => ({ url: `http://${host}/`, expect: "name_blocked" }));

// --- DNS answers --------------------------------------------------------------------------------

const dnsCases: Case[] = [
  ...["public.test", "v6public.test", "dualstack.test", "manyanswers.test", "www.example.com", "example.org"].flatMap((host): Case[] => [
    { url: `http://${host}/`, expect: "allow", host },
    { url: `https://${host}/path?x=1#y`, expect: "allow", host },
    { url: `https://${host.toUpperCase()}./`, expect: "allow", host },
  ]),
  ...[
    "loopback.test",
    "loopback6.test",
    "mixed.test",
    "mixed-last.test",
    "mixed6.test",
    "metadata-ip.test",
    "alibaba-metadata.test",
    "aws-v6-metadata.test",
    "mapped.test",
    "mapped-public.test",
    "compat.test",
    "nat64.test",
    "sixtofour.test",
    "teredo.test",
    "cgnat.test",
    "ula.test",
    "linklocal6.test",
    "zero.test",
    "unspecified6.test",
    "broadcast.test",
    "multicast.test",
    "doc.test",
    "doc6.test",
    "benchmark.test",
    "reserved.test",
    "outside2000.test",
    "127.0.0.1.nip.io",
    "10.0.0.1.sslip.io",
    "7f000001.c0a80001.rbndr.us",
    "localtest.me",
    "intranet.corp",
    "other.test",
  ].flatMap((host): Case[] => [
    { url: `http://${host}/`, expect: "dns_private_answer", host },
    { url: `https://${host}./`, expect: "dns_private_answer", host },
  ]),
  ...["empty.test", "missing.test", "xn--bcher-kva.example", "nonexistent.example.com"].map((host): Case => ({ url: `http://${host}/`, expect: "dns_failed" })),
];

// --- allowlist ----------------------------------------------------------------------------------

const allowedHosts = ["example.com", "*.example.org"];
const allowlistCases: Case[] = [
  { url: "https://example.com/", expect: "allow" },
  { url: "https://EXAMPLE.com./", expect: "allow" },
  { url: "https://www.example.com/", expect: "host_not_allowed" },
  { url: "https://example.org/", expect: "host_not_allowed" },
  { url: "https://a.example.org/", expect: "allow" },
  { url: "https://a.b.example.org/", expect: "allow" },
  { url: "https://evil-example.org/", expect: "host_not_allowed" },
  { url: "https://example.org.evil.com/", expect: "host_not_allowed" },
  { url: "https://93.184.215.14/", expect: "host_not_allowed" },
  { url: "https://[2606:4700:4700::1111]/", expect: "host_not_allowed" },
  { url: "http://localhost/", expect: "name_blocked" },
  { url: "http://127.0.0.1/", expect: "ip_blocked" },
  { url: "http://loopback.test/", expect: "host_not_allowed" },
].map((c) => ({ ...c, options: { allowedHosts } }));

// --- operator allowances ------------------------------------------------------------------------

const allowPrivate: PrivateAllowance[] = [
  { host: "127.0.0.1", port: 8080 },
  { host: "intranet.corp", port: 8443 },
  { host: "::1", port: 9000 },
  { host: "localhost", port: 3000 },
];
const allowanceCases: Case[] = [
  { url: "http://127.0.0.1:8080/", expect: "allow" },
  { url: "http://127.1:8080/", expect: "allow", host: "127.0.0.1" },
  { url: "http://0x7f000001:8080/", expect: "allow", host: "127.0.0.1" },
  { url: "https://127.0.0.1:8080/", expect: "allow" },
  { url: "http://127.0.0.1:8081/", expect: "ip_blocked" },
  { url: "http://127.0.0.1/", expect: "ip_blocked" },
  { url: "http://127.0.0.2:8080/", expect: "ip_blocked" },
  { url: "http://[::1]:9000/", expect: "allow" },
  { url: "http://[0:0:0:0:0:0:0:1]:9000/", expect: "allow" },
  { url: "http://[::1]:8080/", expect: "ip_blocked" },
  { url: "http://[::ffff:127.0.0.1]:8080/", expect: "ip_blocked" },
  { url: "http://intranet.corp:8443/", expect: "allow" },
  { url: "https://intranet.corp:8443/", expect: "allow" },
  { url: "http://INTRANET.corp.:8443/", expect: "allow" },
  { url: "http://intranet.corp/", expect: "dns_private_answer" },
  { url: "http://intranet.corp:8080/", expect: "dns_private_answer" },
  // other.test resolves to the allowed 127.0.0.1, but only an allowance for the name itself admits a name.
  { url: "http://other.test:8080/", expect: "dns_private_answer" },
  { url: "http://private-other.test:8080/", expect: "dns_private_answer" },
  { url: "http://public.test:8080/", expect: "port_blocked" },
  { url: "http://public.test:8443/", expect: "port_blocked" },
  { url: "http://public.test/", expect: "allow" },
  { url: "http://localhost:3000/", expect: "allow" },
  { url: "http://LOCALHOST.:3000/", expect: "allow" },
  { url: "http://localhost:3001/", expect: "name_blocked" },
  { url: "http://localhost/", expect: "name_blocked" },
  { url: "http://foo.localhost:3000/", expect: "name_blocked" },
  { url: "http://user@127.0.0.1:8080/", expect: "userinfo_blocked" },
  { url: "ftp://127.0.0.1:8080/", expect: "url_scheme_not_allowed" },
].map((c) => ({ ...c, options: { allowPrivate } }));

const groups: Array<[string, Case[], PreflightOptions["resolver"]]> = [
  ["IPv4 literal spellings (no DNS may be used)", ipv4Cases, noDns],
  ["IPv4 forms WHATWG rejects", ipv4Rejected, noDns],
  ["IPv6 literals, special ranges and IPv4 embeddings", ipv6Cases, noDns],
  ["userinfo, backslash and parser tricks", trickCases, fixtureResolver()],
  ["schemes", schemeCases, fixtureResolver()],
  ["ports", portCases, fixtureResolver()],
  ["trailing dots and empty labels", dotCases, fixtureResolver()],
  [
    "names blocked whatever DNS says",
    nameCases,
    createStaticResolver({ ...Object.fromEntries(["localhost", "metadata.google.internal", "intranet", "printer.local"].map((h) => [h, ["93.184.215.14"]])) }),
  ],
  ["DNS answers", dnsCases, fixtureResolver()],
  ["allowlist", allowlistCases, fixtureResolver()],
  ["operator allowances", allowanceCases, fixtureResolver()],
];

let total = 0;
for (const [title, cases, resolver] of groups) {
  total += cases.length;
  describe(`preflightUrl table: ${title}`, () => {
    for (const c of cases) {
      test(`${JSON.stringify(c.url)} -> ${c.expect}`, async () => {
        const verdict = await preflightUrl(c.url, { resolver, ...c.options });
        const got = verdict.verdict === "allow" ? "allow" : verdict.code;
        assert.equal(got, c.expect, `${verdict.reason} (host ${verdict.host})`);
        assert.equal(verdict.verdict === "allow", verdict.code === "ok");
        if (c.host !== undefined) assert.equal(verdict.host, c.host);
        if (c.href !== undefined) assert.equal(verdict.url, c.href);
        if (verdict.verdict === "allow") {
          assert.ok(verdict.url !== null && new URL(verdict.url).href === verdict.url, "an allowed verdict hands back a normalized href");
          assert.ok(verdict.addresses.length > 0, "an allowed verdict names the addresses it checked");
          assert.ok(verdict.addresses.every((a) => a.verdict === "public" || a.verdict.startsWith("allowed:")));
        }
        assert.ok(verdict.reason.length > 0);
      });
    }
  });
}

describe("preflightUrl table: size", () => {
  test("has several hundred cases", () => {
    assert.ok(total >= 500, `only ${total} cases`);
  });
});

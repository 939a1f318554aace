import { checkDestination, checkDestinationWithoutDns } from "./checkDestination.js";
import type { DestinationOptions, ResolvingDestinationOptions } from "./checkDestination.js";
import { normalizeHost } from "./classifyHostName.js";
import type { DestinationVerdict, PreflightVerdict } from "./networkVerdict.js";

export type PreflightOptions = Omit<ResolvingDestinationOptions, "defaultPorts">;
export type StaticUrlOptions = Omit<DestinationOptions, "defaultPorts">;

const SCHEME_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

type UrlStage = { done: PreflightVerdict } | { url: URL; port: number; defaultPorts: ReadonlySet<number> };

/** The URL rules that need no network: WHATWG parse, scheme, userinfo, and whether the port is explicit. */
function urlStage(raw: string): UrlStage {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return block("invalid_url", "the URL cannot be parsed as an absolute URL", null, "");
  }
  const host = normalizeHost(url.hostname);
  const schemePort = SCHEME_PORTS[url.protocol];
  if (schemePort === undefined) {
    return block("url_scheme_not_allowed", `scheme "${url.protocol}" is not allowed; only http: and https: are`, url.href, host);
  }
  if (url.username !== "" || url.password !== "") {
    const shown = new URL(url.href);
    shown.username = "";
    shown.password = "";
    return block(
      "userinfo_blocked",
      "the URL carries a user name or password before the host (removed from this report); write the URL without credentials",
      shown.href,
      host,
    );
  }
  // WHATWG drops a port equal to the scheme's default, so any port left here is non-default.
  const port = url.port === "" ? schemePort : Number(url.port);
  return { url, port, defaultPorts: new Set([schemePort]) };
}

function block(code: PreflightVerdict["code"], reason: string, url: string | null, host: string): UrlStage {
  return { done: { verdict: "block", code, reason, url, host, addresses: [], resolver: "none" } };
}

function fromDestination(url: URL, destination: DestinationVerdict): PreflightVerdict {
  const { verdict, code, reason, host, addresses, resolver } = destination;
  return { verdict, code, reason, url: url.href, host, addresses, resolver };
}

/**
 * The network preflight of one URL (layer 1). Parses it as browsers do, then applies in order: scheme
 * (http/https only), no userinfo, the port must be the scheme's default unless an operator allowance
 * names the destination, IP literal classification, name rules, the allowlist, and finally every DNS
 * answer must be public. Any doubt blocks. Give the browser `verdict.url`, never the raw text.
 */
export async function preflightUrl(raw: string, options: PreflightOptions): Promise<PreflightVerdict> {
  const stage = urlStage(raw);
  if ("done" in stage) return stage.done;
  const destination = await checkDestination(stage.url.hostname, stage.port, { ...options, defaultPorts: stage.defaultPorts });
  return fromDestination(stage.url, destination);
}

/**
 * The same rules without DNS, synchronously, for the browser's per-request guard (layer 2). A name
 * that passes is allowed with no addresses: the egress proxy checks what it resolves to.
 */
export function checkUrlWithoutDns(raw: string, options: StaticUrlOptions = {}): PreflightVerdict {
  const stage = urlStage(raw);
  if ("done" in stage) return stage.done;
  return fromDestination(stage.url, checkDestinationWithoutDns(stage.url.hostname, stage.port, { ...options, defaultPorts: stage.defaultPorts }));
}

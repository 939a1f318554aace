import { parseAllowPrivate } from "../../../policy/parseAllowPrivate.js";
import { checkDohEndpoint, createDohResolver, DEFAULT_DOH_ENDPOINT } from "../../../policy/dohResolver.js";
import { createStaticResolver, parseStaticResolveEntries } from "../../../policy/staticResolver.js";
import { createSystemResolver } from "../../../policy/systemResolver.js";
import { preflightUrl } from "../../../policy/preflightUrl.js";
import type { Resolver } from "../../../policy/resolver.js";
import { validateAllowedHostsPolicy } from "../../../policy/validateAllowedHostsPolicy.js";
import type { Problem } from "../../../errors/result.js";
import { EXIT, exitForFailure } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printOut } from "../output.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { UsageError } from "../usageError.js";

export const preflightCommand: Command = {
  name: "preflight",
  summary: "check a URL against the network policy (scheme, port, IP ranges, names, DNS)",
  options: {
    "allow-host": { type: "string", multiple: true },
    resolve: { type: "string", multiple: true },
    "allow-private": { type: "string", multiple: true },
    resolver: { type: "string" },
    json: { type: "boolean" },
  },
  maxPositionals: 1,
  run: runPreflight,
  help: `errand preflight <url> [--allow-host H]... [--resolve HOST=IP[,IP...]]... [--allow-private HOST:PORT]... [--resolver doh|system] [--json]
  Runs errand's network preflight on one URL and prints the verdict.
  --allow-host H          the URL's host must match one of these (exact, or *.example.com for subdomains)
  --resolve HOST=IP,...   answer DNS from this map instead (HOST= means no answer; other names do not exist)
  --allow-private H:P     admit this exact private destination (also ERRAND_ALLOW_PRIVATE, comma-separated)
  --resolver doh|system   DNS-over-HTTPS (the default, or ERRAND_RESOLVER; endpoint ERRAND_DOH_URL, default
                          ${DEFAULT_DOH_ENDPOINT}) or the system resolver
  --json                  the envelope (docs/CLI.md): status allow|block, data {verdict,code,reason,url,host,addresses}
  Exit 0 when allowed, 4 when blocked (the shared table, docs/CLI.md), 2 on a usage error.`,
};

export async function runPreflight(ctx: CommandContext): Promise<number> {
  const raw = ctx.positionals[0];
  if (raw === undefined) throw new UsageError("missing URL");

  const allowedHosts = validateAllowedHostsPolicy(listOption(ctx, "allow-host"));
  if (!allowedHosts.ok) throw new UsageError(describe("--allow-host", allowedHosts.errors));

  const allowTexts = [...(ctx.env["ERRAND_ALLOW_PRIVATE"] === undefined ? [] : [ctx.env["ERRAND_ALLOW_PRIVATE"]]), ...listOption(ctx, "allow-private")];
  const allowPrivate = parseAllowPrivate(allowTexts);
  if (!allowPrivate.ok) throw new UsageError(describe("--allow-private / ERRAND_ALLOW_PRIVATE", allowPrivate.errors));

  const verdict = await preflightUrl(raw, { resolver: chooseResolver(ctx), allowedHosts: allowedHosts.value, allowPrivate: allowPrivate.value });

  if (flagOption(ctx, "json")) {
    const { verdict: v, code, reason, url, host, addresses } = verdict;
    printEnvelope({
      ok: v === "allow",
      status: v,
      ...(v === "allow" ? {} : { error: { code, message: reason } }),
      data: { verdict: v, code, reason, url, host, addresses },
    });
  } else {
    printOut(`${verdict.verdict} ${verdict.url ?? JSON.stringify(raw)}`);
    printOut(`  ${verdict.reason} [${verdict.code}]`);
    if (verdict.host !== "") printOut(`  host ${verdict.host} (resolver: ${verdict.resolver})`);
    for (const address of verdict.addresses) printOut(`  ${address.ip} ${address.verdict}`);
  }
  return verdict.verdict === "allow" ? EXIT.pass : exitForFailure(verdict.code === "ok" ? "network_blocked" : verdict.code);
}

function chooseResolver(ctx: CommandContext): Resolver {
  const entries = listOption(ctx, "resolve");
  const flag = stringOption(ctx, "resolver");
  if (entries.length > 0) {
    if (flag !== undefined) throw new UsageError("--resolve replaces DNS; do not combine it with --resolver");
    const map = parseStaticResolveEntries(entries);
    if (!map.ok) throw new UsageError(describe("--resolve", map.errors));
    return createStaticResolver(map.value, "static:--resolve");
  }
  const kind = flag ?? nonEmpty(ctx.env["ERRAND_RESOLVER"]) ?? "doh";
  if (kind === "system") return createSystemResolver();
  if (kind !== "doh") throw new UsageError(`the resolver must be doh or system, not "${kind}"`);
  const endpoint = nonEmpty(ctx.env["ERRAND_DOH_URL"]) ?? DEFAULT_DOH_ENDPOINT;
  const problem = checkDohEndpoint(endpoint);
  if (problem !== null) throw new UsageError(`ERRAND_DOH_URL: ${problem}`);
  return createDohResolver({ endpoint });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function describe(source: string, problems: readonly Problem[]): string {
  return `${source}: ${problems.map((p) => p.message).join("; ")}`;
}

import { parseDuration } from "../../../config/parseDuration.js";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { DEFAULT_GRANT_MS, MAX_GRANT_MS } from "../../../sites/createSiteRegistry.js";
import { SiteError } from "../../../sites/siteTypes.js";
import type { SiteSummary } from "../../../sites/siteTypes.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { openSites } from "../../../app/openSites.js";
import type { OpenedSites } from "../../../app/ownerRegistries.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { UsageError } from "../usageError.js";

const ADD_OPTIONS = ["origin", "login-url", "logged-in", "login-host"] as const;
const ALLOW_OPTIONS = ["risk", "secret", "for"] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

export const siteCommand: Command = {
  name: "site",
  summary: "set up the sites whose saved login tasks may use, each bound to the origins its session may go to",
  options: {
    origin: { type: "string", multiple: true },
    "login-url": { type: "string" },
    "logged-in": { type: "string" },
    "login-host": { type: "string", multiple: true },
    risk: { type: "string" },
    secret: { type: "string", multiple: true },
    for: { type: "string" },
    json: { type: "boolean" },
  },
  maxPositionals: 2,
  run: runSite,
  help: `errand site add NAME --origin ORIGIN [--origin ORIGIN]... [--login-url URL] [--logged-in SELECTOR] [--login-host HOST]...
errand site list [--json]
errand site show NAME [--json]
errand site remove NAME
errand site allow NAME --risk reversible_write|consequential [--secret NAME]... [--for DURATION]
errand site revoke NAME
errand site login NAME [--json]
  add     sets up the site NAME (a letter, then letters, digits, "_" or "-"; at most 64), or redefines
          it (which drops its saved session). A task naming it ("site": "NAME") starts in a browser
          holding the site's saved session: the cookies and local storage of its origins only, and
          only when the task's target is on one of them. ORIGIN is an exact origin
          (https://library.example.com, http://127.0.0.1:8080) or one leading wildcard label
          (https://*.example.com), as for secrets. --login-url is where a login starts (on one of
          the origins or a --login-host). --logged-in SELECTOR is on the target page only when
          logged in: a site task that types no secret and does not find it ends BLOCKED
          (login_required) before any step. --login-host HOST (an SSO provider) a login may pass
          through; it never receives the session. The session is saved after each site task,
          sealed (AES-256-GCM under a subkey of ERRAND_HOME/keys/master.key): first by a task that
          logs in (fill_secret), then after every task that used it, so rotated cookies are kept.
  list    names, origins, login settings and whether a session is saved; never a session.
          --json: data.sites (docs/CLI.md).
  show    one site as list shows it. --json: data.site.
  remove  deletes the site and its saved session; tasks naming it are then refused (site_unknown).
  allow   a standing grant: tasks naming the site whose every host (target, allowedHosts, goto
          URLs) is on its origins, of at most --risk, typing only the --secret names listed, run
          without waiting for the owner's approval until it expires (--for, default ${DEFAULT_GRANT_MS / DAY_MS}d, at most
          ${MAX_GRANT_MS / DAY_MS}d: 12h, 7d, 2w) or is revoked. --risk consequential must be spelled out and
          warns. The risk is the label the assistant writes, so a reversible_write grant lets it
          make any write the site offers a logged-in user: grant only sites where that is fine.
          The receipt names the grant a task ran under. A redefined site's grants end.
  revoke  ends every grant of the site; tasks on it wait for the owner again.
  login   prints the owner console's login page of the site (ERRAND_PUBLIC_URL/owner/sites/NAME/login):
          open it on your phone, log in as the owner, log in to the site by hand in errand's live
          browser, tap Done; errand checks the logged-in selector and saves the session.
          --json: data.url.
  Only this command (and the owner console) sets sites up and grants: the REST API and MCP can list
  them and their live grants, never change them.`,
};

async function runSite(ctx: CommandContext): Promise<number> {
  const action = ctx.positionals[0];
  const name = ctx.positionals[1];
  const json = flagOption(ctx, "json");
  const config = resolveRuntimeConfig(ctx.env);
  if (action !== "add" && action !== "list" && action !== "show" && action !== "remove" && action !== "allow" && action !== "revoke" && action !== "login") {
    throw new UsageError('say "add NAME --origin ORIGIN", "list", "show NAME", "remove NAME", "allow NAME --risk RISK", "revoke NAME" or "login NAME"');
  }
  if (action !== "add") refuseOptions(ctx, action, ADD_OPTIONS, "site add");
  if (action !== "allow") refuseOptions(ctx, action, ALLOW_OPTIONS, "site allow");
  if (action === "list") {
    if (name !== undefined) throw new UsageError("site list takes no name");
  } else if (name === undefined) throw new UsageError(`site ${action} needs a NAME`);
  const opened = openSites(config, ctx.env, action === "list" || action === "show" || action === "login" ? "read" : "write");
  try {
    if (action === "list") return printList(await opened.registry.list(), json);
    const siteName = name ?? "";
    if (action === "show") {
      const site = await opened.registry.show(siteName);
      if (site === null)
        return printFailure({ code: "site_unknown", message: `No site named ${siteName} is set up (errand site add ${siteName} --origin https://...).` }, json);
      if (json) printEnvelope({ ok: true, status: "ok", data: { site } });
      else printOut(describeSite(site));
      return EXIT.pass;
    }
    if (action === "allow") return await allowSite(ctx, opened.registry, siteName, json);
    if (action === "revoke") {
      const ended = await opened.registry.revoke(siteName);
      if (json) printEnvelope({ ok: true, status: "ok", data: { revoked: ended } });
      else
        printErr(
          ended.length === 0
            ? `site ${siteName} had no grant to revoke`
            : `revoked ${ended.length} grant${ended.length === 1 ? "" : "s"} on ${siteName} (${ended.join(", ")}); its writes wait for the owner again`,
        );
      return EXIT.pass;
    }
    if (action === "login") {
      const site = await opened.registry.show(siteName);
      if (site === null)
        return printFailure({ code: "site_unknown", message: `No site named ${siteName} is set up (errand site add ${siteName} --origin https://...).` }, json);
      if ((ctx.env["ERRAND_PUBLIC_URL"] ?? "").trim() === "") {
        return printFailure(
          {
            code: "configuration_error",
            message: `No public URL is configured, so errand cannot say where the owner console is. Set ERRAND_PUBLIC_URL to the address errand serve is reached at (as for errand serve --public-url); the page is /owner/sites/${siteName}/login on it.`,
          },
          json,
        );
      }
      const url = opened.registry.loginPageUrl(siteName);
      if (json) printEnvelope({ ok: true, status: "ok", data: { url } });
      else {
        printOut(url);
        printErr(
          `Open it on your phone, log in as the owner, log in to ${siteName} by hand in errand's live browser, then tap Done (the page closes its browser after ERRAND_LOGIN_TTL).`,
        );
      }
      return EXIT.pass;
    }
    if (action === "remove") {
      if (!(await opened.registry.remove(siteName)))
        return printFailure({ code: "site_unknown", message: `No site named ${siteName} is set up; nothing was removed.` }, json);
      printErr(`site ${siteName} removed, with its saved session`);
      return EXIT.pass;
    }
    const origins = listOption(ctx, "origin");
    if (origins.length === 0) throw new UsageError("site add needs at least one --origin ORIGIN");
    const loginUrl = stringOption(ctx, "login-url");
    const loggedIn = stringOption(ctx, "logged-in");
    const { created, site } = await opened.registry.define({
      name: siteName,
      origins,
      loginHosts: listOption(ctx, "login-host"),
      ...(loginUrl === undefined ? {} : { loginUrl }),
      ...(loggedIn === undefined ? {} : { loggedInSelector: loggedIn }),
    });
    if (json) printEnvelope({ ok: true, status: "ok", data: { created, site } });
    else
      printErr(`site ${site.name} ${created ? "set up" : "redefined (its saved session was dropped)"}; its session may be used on ${site.origins.join(", ")}`);
    return EXIT.pass;
  } catch (error) {
    if (error instanceof SiteError) return printFailure({ code: error.code, message: `${error.message} Nothing was changed.` }, json);
    throw error;
  } finally {
    await opened.close();
  }
}

const MULTIPLE = new Set(["origin", "login-host", "secret"]);

function refuseOptions(ctx: CommandContext, action: string, options: readonly string[], owner: string): void {
  const given = options.filter((option) => (MULTIPLE.has(option) ? listOption(ctx, option).length > 0 : stringOption(ctx, option) !== undefined));
  if (given.length > 0) throw new UsageError(`--${given.join(", --")} belong${given.length === 1 ? "s" : ""} to ${owner}, not site ${action}`);
}

async function allowSite(ctx: CommandContext, registry: OpenedSites["registry"], name: string, json: boolean): Promise<number> {
  const risk = stringOption(ctx, "risk");
  if (risk === undefined) throw new UsageError("site allow needs --risk reversible_write (or --risk consequential, spelled out)");
  if (risk !== "reversible_write" && risk !== "consequential")
    throw new UsageError(`--risk must be reversible_write or consequential (read_only tasks need no grant), not ${risk}`);
  const forText = stringOption(ctx, "for");
  let durationMs: number | undefined;
  if (forText !== undefined) {
    durationMs = parseDuration(forText);
    if (durationMs === undefined || durationMs <= 0 || durationMs > MAX_GRANT_MS)
      throw new UsageError(`--for takes a duration such as 12h, 7d or 2w, at most ${MAX_GRANT_MS / DAY_MS}d; got ${forText}`);
  }
  if (risk === "consequential")
    printErr(
      `WARNING: tasks on ${name} labelled consequential (payments, sending, deleting) will run without asking you, until the grant expires or you run errand site revoke ${name}.`,
    );
  const grant = await registry.allow(name, { risk, secrets: listOption(ctx, "secret"), via: "cli", ...(durationMs === undefined ? {} : { durationMs }) });
  if (json) printEnvelope({ ok: true, status: "ok", data: { grant } });
  else
    printErr(
      `granted ${grant.id} on ${name}: tasks on it up to ${grant.risk}${grant.secrets.length === 0 ? ", typing no secret," : `, typing only ${grant.secrets.join(", ")},`} run without your approval until ${grant.expiresAt} (errand site revoke ${name} ends it)`,
    );
  return EXIT.pass;
}

function describeSite(site: SiteSummary): string {
  const session =
    site.session === "none"
      ? "no session saved"
      : site.session === "expired"
        ? "logged out (its logged-in check failed)"
        : `session saved ${site.sessionSavedAt ?? ""}`;
  return [
    `${site.name}  ${site.loggedIn ? "logged in" : "not logged in"}: ${site.authentic ? session : "its stored definition fails its MAC (changed without the key): set it up again"}`,
    `  origins      ${site.origins.join(" ")}`,
    `  login url    ${site.loginUrl ?? "-"}`,
    `  logged in if ${site.loggedInSelector ?? "- (errand cannot tell)"}`,
    ...(site.loginHosts.length === 0 ? [] : [`  login hosts  ${site.loginHosts.join(" ")}`]),
    ...site.grants.map(
      (grant) =>
        `  grant        ${grant.id} up to ${grant.risk}, secrets ${grant.secrets.length === 0 ? "none" : grant.secrets.join(" ")}, until ${grant.expiresAt}`,
    ),
  ].join("\n");
}

function printList(sites: SiteSummary[], json: boolean): number {
  if (json) {
    printEnvelope({ ok: true, status: "ok", data: { sites } });
    return EXIT.pass;
  }
  if (sites.length === 0) {
    printOut("no sites set up (errand site add NAME --origin ORIGIN)");
    return EXIT.pass;
  }
  for (const site of sites)
    printOut(
      `${site.name}  ${site.authentic ? (site.loggedIn ? "logged in    " : "not logged in") : "TAMPERED     "}  ${site.origins.join(" ")}${site.grants.length === 0 ? "" : `  (${site.grants.length} grant${site.grants.length === 1 ? "" : "s"})`}`,
    );
  return EXIT.pass;
}

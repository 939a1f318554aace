import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { SiteError } from "../../../sites/siteTypes.js";
import type { SiteSummary } from "../../../sites/siteTypes.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { openSites } from "../openSites.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { UsageError } from "../usageError.js";

const ADD_OPTIONS = ["origin", "login-url", "logged-in", "login-host"] as const;

export const siteCommand: Command = {
  name: "site",
  summary: "set up the sites whose saved login tasks may use, each bound to the origins its session may go to",
  options: {
    origin: { type: "string", multiple: true },
    "login-url": { type: "string" },
    "logged-in": { type: "string" },
    "login-host": { type: "string", multiple: true },
    json: { type: "boolean" },
  },
  maxPositionals: 2,
  run: runSite,
  help: `errand site add NAME --origin ORIGIN [--origin ORIGIN]... [--login-url URL] [--logged-in SELECTOR] [--login-host HOST]...
errand site list [--json]
errand site show NAME [--json]
errand site remove NAME
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
  Only this command sets sites up: the REST API and MCP can list them, never change them.`,
};

async function runSite(ctx: CommandContext): Promise<number> {
  const action = ctx.positionals[0];
  const name = ctx.positionals[1];
  const json = flagOption(ctx, "json");
  const config = resolveRuntimeConfig(ctx.env);
  if (action !== "add" && action !== "list" && action !== "show" && action !== "remove") throw new UsageError('say "add NAME --origin ORIGIN", "list", "show NAME" or "remove NAME"');
  if (action !== "add") refuseAddOptions(ctx, action);
  if (action === "list") {
    if (name !== undefined) throw new UsageError("site list takes no name");
  } else if (name === undefined) throw new UsageError(`site ${action} needs a NAME`);
  const opened = openSites(config, ctx.env, action === "list" || action === "show" ? "read" : "write");
  try {
    if (action === "list") return printList(await opened.registry.list(), json);
    const siteName = name ?? "";
    if (action === "show") {
      const site = await opened.registry.show(siteName);
      if (site === null) return printFailure({ code: "site_unknown", message: `No site named ${siteName} is set up (errand site add ${siteName} --origin https://...).` }, json);
      if (json) printEnvelope({ ok: true, status: "ok", data: { site } });
      else printOut(describeSite(site));
      return EXIT.pass;
    }
    if (action === "remove") {
      if (!(await opened.registry.remove(siteName))) return printFailure({ code: "site_unknown", message: `No site named ${siteName} is set up; nothing was removed.` }, json);
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
    else printErr(`site ${site.name} ${created ? "set up" : "redefined (its saved session was dropped)"}; its session may be used on ${site.origins.join(", ")}`);
    return EXIT.pass;
  } catch (error) {
    if (error instanceof SiteError) return printFailure({ code: error.code, message: `${error.message} Nothing was changed.` }, json);
    throw error;
  } finally {
    await opened.close();
  }
}

function refuseAddOptions(ctx: CommandContext, action: string): void {
  const given = ADD_OPTIONS.filter((option) => (option === "origin" || option === "login-host" ? listOption(ctx, option).length > 0 : stringOption(ctx, option) !== undefined));
  if (given.length > 0) throw new UsageError(`--${given.join(", --")} belong${given.length === 1 ? "s" : ""} to site add, not site ${action}`);
}

function describeSite(site: SiteSummary): string {
  const session = site.session === "none" ? "no session saved" : site.session === "expired" ? "logged out (its logged-in check failed)" : `session saved ${site.sessionSavedAt ?? ""}`;
  return [
    `${site.name}  ${site.loggedIn ? "logged in" : "not logged in"}: ${site.authentic ? session : "its stored definition fails its MAC (changed without the key): set it up again"}`,
    `  origins      ${site.origins.join(" ")}`,
    `  login url    ${site.loginUrl ?? "-"}`,
    `  logged in if ${site.loggedInSelector ?? "- (errand cannot tell)"}`,
    ...(site.loginHosts.length === 0 ? [] : [`  login hosts  ${site.loginHosts.join(" ")}`]),
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
  for (const site of sites) printOut(`${site.name}  ${site.authentic ? (site.loggedIn ? "logged in    " : "not logged in") : "TAMPERED     "}  ${site.origins.join(" ")}`);
  return EXIT.pass;
}

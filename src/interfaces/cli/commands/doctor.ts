import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveErrandHome } from "../../../config/resolveErrandHome.js";
import { DEFAULT_OWNER_APPROVAL, parseOwnerApproval, unattendedUnderPolicy } from "../../../config/parseOwnerApproval.js";
import { createJournalSealer } from "../../../journal/createJournalSealer.js";
import type { JournalSealer } from "../../../journal/createJournalSealer.js";
import { deriveSubkey, readHexKeyFile } from "../../../keys/loadKey.js";
import { CLOUD_PROVIDER_NAMES } from "../../../providers/providerNames.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printOut } from "../output.js";
import type { DatabaseFacts } from "../../../store/sqlite/inspectDatabase.js";
import { errorMessage } from "../../../errors/errorMessage.js";

/** One finding: what was checked, whether it holds, what was seen, and the fix in one line when it does not. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix: string | null;
}

export const doctorCommand: Command = {
  name: "doctor",
  summary: "check this installation (browser, sandbox, resolver, state, key, database, owner, URL, proxy headers, providers)",
  options: { json: { type: "boolean" }, offline: { type: "boolean" } },
  maxPositionals: 0,
  run: runDoctor,
  help: `errand doctor [--offline] [--json]
  Checks, without changing anything: where the state lives (ERRAND_HOME) and its file modes, the
  master key, the database and its schema (ERRAND_HOME/errand.db, or the PostgreSQL database
  ERRAND_DATABASE_URL names: reachable, migrated), the owner password, every stored row that grants
  authority against its MAC (owner password, API tokens, OAuth grants, secrets; with the key
  readable, each failing row named by table and id), the owner-approval policy
  (ERRAND_OWNER_APPROVAL: flagged when it lets a write or a secret run without the owner), Chromium
  and its sandbox, the resolver (DNS-over-HTTPS reachable), the public URL and its TLS
  (ERRAND_PUBLIC_URL), whether the running errand serve got forwarded headers (X-Forwarded-For)
  from a peer ERRAND_TRUSTED_PROXIES does not list, and each cloud provider's credential and
  circuit. Each problem comes with its fix in one line.
  --offline skips the two checks that use the network (resolver, public URL).
  --json: the envelope of docs/CLI.md; status healthy|needs_attention, data {home, checks}.
  Exit 0 when everything holds, 1 when something needs fixing.`,
};

const pass = (name: string, detail: string): DoctorCheck => ({ name, ok: true, detail, fix: null });
const fail = (name: string, detail: string, fix: string): DoctorCheck => ({ name, ok: false, detail, fix });

function modeOf(path: string): number | null {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return null;
  }
}

function checkFileModes(home: string): DoctorCheck {
  const wanted: [string, number][] = [
    [home, 0o700],
    [join(home, "keys"), 0o700],
    [join(home, "keys", "master.key"), 0o600],
    [join(home, "errand.db"), 0o600],
    [join(home, "errand.db-wal"), 0o600],
    [join(home, "errand.db-shm"), 0o600],
  ];
  const loose = wanted.flatMap(([path, mode]) => {
    const actual = modeOf(path);
    return actual === null || actual === mode ? [] : [{ path, mode, actual }];
  });
  if (loose.length === 0) return pass("file permissions", "state directories 700, key and database files 600");
  return fail(
    "file permissions",
    loose.map((l) => `${l.path} is ${l.actual.toString(8)}, not ${l.mode.toString(8)}`).join("; "),
    loose.map((l) => `chmod ${l.mode.toString(8)} ${l.path}`).join(" && "),
  );
}

function checkKey(home: string): DoctorCheck {
  const path = join(home, "keys", "master.key");
  if (!existsSync(path))
    return fail(
      "master key",
      `no key at ${path}`,
      `restore the key that belongs to this database to ${path} (mode 600); for a new installation any command creates one`,
    );
  try {
    readHexKeyFile(path);
    return pass("master key", `${path} (keep a copy apart from backups)`);
  } catch (error) {
    return fail("master key", errorMessage(error), `put the right 32-byte hex key back at ${path} from your key backup`);
  }
}

/** The sealer that checks stored rows, when the master key can be read (doctor never creates one). */
function sealerOf(home: string): JournalSealer | undefined {
  try {
    return createJournalSealer(deriveSubkey(readHexKeyFile(join(home, "keys", "master.key")), "journal"));
  } catch {
    return undefined;
  }
}

async function checkDatabase(home: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const url = env["ERRAND_DATABASE_URL"];
  if (url !== undefined && url.trim() !== "") return checkPostgres(url.trim(), env, sealerOf(home));
  const path = join(home, "errand.db");
  if (!existsSync(path)) {
    return [
      fail("database", `no database at ${path}`, 'run "errand status" to create it, or "errand restore FILE" to bring a backup back'),
      ownerCheck(env, false),
    ];
  }
  const { inspectDatabase } = await import("../../../store/sqlite/inspectDatabase.js");
  let facts: DatabaseFacts;
  try {
    facts = inspectDatabase(path, sealerOf(home));
  } catch (error) {
    return [
      fail("database", `${path} cannot be read: ${errorMessage(error)}`, 'restore the latest backup with "errand restore FILE" into an empty ERRAND_HOME'),
      ownerCheck(env, null),
    ];
  }
  const checks: DoctorCheck[] = [];
  if (facts.integrity !== "ok")
    checks.push(fail("database", `${path} is damaged: ${facts.integrity}`, 'restore the latest backup with "errand restore FILE" into an empty ERRAND_HOME'));
  else if (facts.schemaVersion > facts.supportedVersion)
    checks.push(
      fail("database", `schema ${facts.schemaVersion} is newer than this errand knows (${facts.supportedVersion})`, "run the newer errand that wrote it"),
    );
  else if (facts.schemaVersion < facts.supportedVersion)
    checks.push(
      pass(
        "database",
        `${path} intact; schema ${facts.schemaVersion} will be migrated to ${facts.supportedVersion} on the next start, after an automatic backup`,
      ),
    );
  else checks.push(pass("database", `${path} intact, schema ${facts.schemaVersion}`));
  return [...checks, ...factChecks(facts, env)];
}

/** The database ERRAND_DATABASE_URL names (no ERRAND_HOME/errand.db then): reachable, its schema, its owner password and circuits. */
async function checkPostgres(url: string, env: NodeJS.ProcessEnv, sealer: JournalSealer | undefined): Promise<DoctorCheck[]> {
  const [{ inspectPostgres }, { describeDatabaseUrl, isPostgresUrl }] = await Promise.all([
    import("../../../store/postgres/inspectPostgres.js"),
    import("../../../store/postgres/postgresConnection.js"),
  ]);
  if (!isPostgresUrl(url))
    return [
      fail(
        "database",
        "ERRAND_DATABASE_URL is not a postgres:// or postgresql:// URL",
        "set it to postgres://USER@HOST:PORT/DATABASE, or unset it to use ERRAND_HOME/errand.db",
      ),
    ];
  const where = `PostgreSQL ${describeDatabaseUrl(url)} (ERRAND_DATABASE_URL)`;
  let facts: DatabaseFacts;
  try {
    facts = await inspectPostgres(url, sealer);
  } catch (error) {
    return [
      fail("database", `${where}: ${errorMessage(error)}`, "start the server, or correct the host, database, user or password in ERRAND_DATABASE_URL"),
      ownerCheck(env, null),
    ];
  }
  const checks: DoctorCheck[] = [];
  if (facts.schemaVersion === 0)
    checks.push(
      fail(
        "database",
        `${where} has no errand schema`,
        'run "errand migrate" with ERRAND_DATABASE_URL set (it also creates the key the database is signed with)',
      ),
    );
  else if (facts.schemaVersion > facts.supportedVersion)
    checks.push(
      fail(
        "database",
        `${where} has schema ${facts.schemaVersion}, newer than this errand knows (${facts.supportedVersion})`,
        "run the newer errand that wrote it",
      ),
    );
  else if (facts.schemaVersion < facts.supportedVersion)
    checks.push(
      pass("database", `${where} reachable; schema ${facts.schemaVersion} will be migrated to ${facts.supportedVersion} on first use ("errand migrate")`),
    );
  else checks.push(pass("database", `${where} reachable, schema ${facts.schemaVersion}`));
  return [...checks, ...factChecks(facts, env)];
}

/** setInDatabase is null when the database cannot be read: the environment still answers, and a password only stored there is not vouched for. */
function ownerCheck(env: NodeJS.ProcessEnv, setInDatabase: boolean | null): DoctorCheck {
  if ((env["ERRAND_OWNER_PASSWORD"] ?? "") !== "") return pass("owner password", "set by ERRAND_OWNER_PASSWORD");
  if (setInDatabase === null)
    return fail(
      "owner password",
      "unknown: ERRAND_OWNER_PASSWORD is not set and the database that would hold its hash cannot be read",
      'fix the database, then run "errand doctor" again (or set ERRAND_OWNER_PASSWORD_FILE)',
    );
  if (setInDatabase) return pass("owner password", "set (scrypt hash in the database)");
  return fail(
    "owner password",
    "not set: nobody could approve ChatGPT on the consent page",
    'run "errand owner set-password" (or set ERRAND_OWNER_PASSWORD_FILE)',
  );
}

/** Rows that grant authority against their MACs: each one that fails is named by table and id. */
function rowsCheck(facts: DatabaseFacts): DoctorCheck[] {
  if (facts.keyMatchesJournal === false) {
    return [
      fail(
        "authority rows",
        "not checked: keys/master.key is not the key this database's journal was written with, so no stored MAC can verify",
        "put back the master key that belongs to this database (from your key backup)",
      ),
    ];
  }
  const rows = facts.unauthenticRows;
  if (rows === null) return [];
  if (rows.length === 0)
    return [
      pass(
        "authority rows",
        "every stored row that grants authority (owner password, API tokens, OAuth clients, codes, grants and tokens, declared secrets, sites, standing grants on sites) passes its MAC",
      ),
    ];
  return [
    fail(
      "authority rows",
      `${rows.length} row(s) fail their MAC (changed without the key) and grant nothing: ${rows.map((r) => `${r.table} ${r.id}`).join("; ")}`,
      'set the owner password again ("errand owner set-password") if it is listed, revoke listed API tokens ("errand token revoke ID") and OAuth grants ("errand token revoke --all-oauth"), declare listed secrets again ("errand secret set"), and find who could write the database',
    ),
  ];
}

/** Owner password, rows that grant authority and open circuits, read the same way from either store. */
function factChecks(facts: DatabaseFacts, env: NodeJS.ProcessEnv): DoctorCheck[] {
  const checks = [ownerCheck(env, facts.ownerPasswordSet), ...rowsCheck(facts)];
  for (const breaker of facts.breakers.filter((b) => b.state !== "CLOSED")) {
    checks.push(
      fail(
        `provider ${breaker.provider}`,
        `circuit ${breaker.state} after repeated failures`,
        'see "errand provider list" for when it closes; check the provider\'s status page',
      ),
    );
  }
  return checks;
}

/** ERRAND_OWNER_APPROVAL: anything less than every write and every secret lets the assistant act alone. */
function checkOwnerApproval(env: NodeJS.ProcessEnv): DoctorCheck {
  const raw = env["ERRAND_OWNER_APPROVAL"];
  if (raw === undefined || raw === "")
    return pass("owner approval", `default: every write and every secret waits for the owner (${DEFAULT_OWNER_APPROVAL.join(",")})`);
  let rules;
  try {
    rules = parseOwnerApproval(raw);
  } catch (error) {
    return fail("owner approval", errorMessage(error), "unset ERRAND_OWNER_APPROVAL (every write and every secret waits for the owner)");
  }
  const unattended = unattendedUnderPolicy(rules);
  if (unattended.length === 0) return pass("owner approval", `ERRAND_OWNER_APPROVAL=${raw}: every write and every secret waits for the owner`);
  const what = unattended.map((rule) => (rule === "secret" ? "tasks that type a secret" : `${rule} tasks`)).join(", ");
  return fail(
    "owner approval",
    `ERRAND_OWNER_APPROVAL=${raw.slice(0, 80)} lets ${what} run on the assistant's word alone, without the owner`,
    "unset ERRAND_OWNER_APPROVAL (every write and every secret then waits for the owner), or keep it only if no assistant or token you do not fully trust can submit tasks",
  );
}

async function checkChromium(env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const { findChromium, CHROMIUM_INSTALL_HINT } = await import("../../../providers/local/findChromium.js");
  const path = findChromium(env);
  if (path === null)
    return [
      fail("chromium", CHROMIUM_INSTALL_HINT, "sudo apt-get install -y chromium (or set CHROME_PATH)"),
      fail("chromium sandbox", "no Chromium to check", "install Chromium first"),
    ];
  const checks = [pass("chromium", path)];
  if (process.getuid?.() === 0) {
    checks.push(
      fail(
        "chromium sandbox",
        "errand runs as root, where Chromium refuses its sandbox (errand then runs it without one)",
        "run errand as its own unprivileged user: deploy/errand.service or deploy/Dockerfile",
      ),
    );
    return checks;
  }
  if (env["ERRAND_CHROMIUM_SANDBOX"] === "off") {
    checks.push(
      fail(
        "chromium sandbox",
        "turned off by ERRAND_CHROMIUM_SANDBOX=off",
        "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) and unset ERRAND_CHROMIUM_SANDBOX",
      ),
    );
    return checks;
  }
  // Start Chromium sandboxed, as errand will, on a blank page: no network, gone in seconds.
  const probe = spawnSync(path, ["--headless=new", "--disable-gpu", "--no-first-run", "--dump-dom", "about:blank"], { encoding: "utf8", timeout: 30_000 });
  if (probe.status === 0) checks.push(pass("chromium sandbox", "Chromium starts with its sandbox"));
  else
    checks.push(
      fail(
        "chromium sandbox",
        `Chromium did not start sandboxed: ${
          (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`)
            .split("\n")
            .find((l) => l.trim() !== "")
            ?.slice(0, 200) ?? ""
        }`,
        "enable unprivileged user namespaces (sysctl -w kernel.unprivileged_userns_clone=1), or as a last resort ERRAND_CHROMIUM_SANDBOX=off",
      ),
    );
  return checks;
}

async function checkResolver(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const [{ createDohResolver, checkDohEndpoint, DEFAULT_DOH_ENDPOINT }, { createSystemResolver }] = await Promise.all([
    import("../../../policy/dohResolver.js"),
    import("../../../policy/systemResolver.js"),
  ]);
  const kind = env["ERRAND_RESOLVER"] === "system" ? "system" : "doh";
  const endpoint = env["ERRAND_DOH_URL"] !== undefined && env["ERRAND_DOH_URL"] !== "" ? env["ERRAND_DOH_URL"] : DEFAULT_DOH_ENDPOINT;
  if (kind === "doh") {
    const problem = checkDohEndpoint(endpoint);
    if (problem !== null) return fail("resolver", problem, "set ERRAND_DOH_URL to an https DNS-over-HTTPS endpoint");
  }
  const resolver = kind === "system" ? createSystemResolver() : createDohResolver({ endpoint, timeoutMs: 5_000 });
  const answer = await resolver.resolve("example.com", AbortSignal.timeout(8_000));
  if ("addresses" in answer) return pass("resolver", `${kind === "doh" ? `DNS-over-HTTPS ${endpoint}` : "system resolver"} answers (example.com)`);
  return fail(
    "resolver",
    `${kind === "doh" ? endpoint : "the system resolver"} did not answer: ${answer.error}${answer.detail === undefined ? "" : ` (${answer.detail})`}; every task would be refused (errand fails closed)`,
    kind === "doh"
      ? `allow outbound HTTPS to ${new URL(endpoint).host}, or set ERRAND_DOH_URL to a reachable DoH endpoint`
      : "fix /etc/resolv.conf, or use ERRAND_RESOLVER=doh",
  );
}

async function checkPublicUrl(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const raw = env["ERRAND_PUBLIC_URL"];
  if (raw === undefined || raw === "")
    return pass("public URL", "ERRAND_PUBLIC_URL not set: errand serve stays on loopback (ChatGPT needs an https URL, docs/OPERATIONS.md)");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(
      "public URL",
      `ERRAND_PUBLIC_URL "${raw.slice(0, 80)}" is not a URL`,
      "set it to the https origin of your tunnel or reverse proxy, e.g. https://errand.example.com",
    );
  }
  if (url.protocol !== "https:")
    return fail(
      "public URL",
      `${url.origin} is not https; ChatGPT only connects over TLS`,
      "put a TLS reverse proxy or tunnel in front (deploy/compose.yaml) and use its https origin",
    );
  try {
    const response = await fetch(`${url.origin}/healthz`, { signal: AbortSignal.timeout(8_000), redirect: "error" });
    if (response.status === 200) return pass("public URL", `${url.origin}/healthz answers over TLS with a valid certificate`);
    return fail(
      "public URL",
      `${url.origin}/healthz answered HTTP ${response.status}`,
      "check that the proxy forwards to errand serve and passes the Host header",
    );
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : errorMessage(error);
    return fail("public URL", `${url.origin} is not reachable over TLS: ${cause}`, "check the tunnel or reverse proxy, its DNS name and its certificate");
  }
}

/** Forwarded headers the running errand serve could not use: from an untrusted peer, or a trusted proxy without X-Forwarded-For (forwardedHeaderStatus). */
async function checkForwardedHeaders(home: string): Promise<DoctorCheck> {
  const { readForwardedStatus } = await import("../../../app/forwardedHeaderStatus.js");
  const seen = readForwardedStatus(home);
  if (seen === undefined) return pass("proxy headers", "errand serve has seen no forwarded headers it could not use since it started");
  const trusted = seen.trustedProxies.length === 0 ? "ERRAND_TRUSTED_PROXIES is empty" : `ERRAND_TRUSTED_PROXIES is ${seen.trustedProxies.join(",")}`;
  if (seen.problem === "no_x_forwarded_for") {
    return fail(
      "proxy headers",
      `the trusted proxy ${seen.peer} named the client only in ${seen.header}, without X-Forwarded-For (the one errand reads), on ${seen.requests} request(s) since ${new Date(seen.firstSeenMs).toISOString()}: every client behind it shares its address and one owner-password lockout`,
      "make the proxy send X-Forwarded-For (nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for), then restart errand serve",
    );
  }
  return fail(
    "proxy headers",
    `errand serve got ${seen.header} from ${seen.peer}, which it does not trust (${trusted}), on ${seen.requests} request(s) since ${new Date(seen.firstSeenMs).toISOString()}: every client behind that peer shares its address and one owner-password lockout`,
    `if ${seen.peer} is your reverse proxy or tunnel, add it to ERRAND_TRUSTED_PROXIES and restart errand serve; if not, someone sent forged headers (they were ignored)`,
  );
}

async function checkProviders(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const { missingCredential } = await import("../../../providers/providerCredentials.js");
  const configured = CLOUD_PROVIDER_NAMES.filter((name) => missingCredential(name, env) === null);
  return pass(
    "cloud providers",
    configured.length === 0
      ? "none configured: tasks run on local Chromium"
      : `credentials set for ${configured.join(", ")} (each needs a passing "errand provider smoke" before auto routing uses it)`,
  );
}

async function runDoctor(ctx: CommandContext): Promise<number> {
  const home = resolveErrandHome(ctx.env);
  const offline = flagOption(ctx, "offline");
  const checks: DoctorCheck[] = [];
  const homeMode = modeOf(home.path);
  checks.push(
    homeMode === null
      ? fail("state directory", `${home.path} (from ${home.source}) does not exist`, 'run "errand status" to create it, or set ERRAND_HOME')
      : pass("state directory", `${home.path} (from ${home.source})`),
  );
  checks.push(
    checkFileModes(home.path),
    checkKey(home.path),
    ...(await checkDatabase(home.path, ctx.env)),
    checkOwnerApproval(ctx.env),
    ...(await checkChromium(ctx.env)),
  );
  if (offline) checks.push(pass("resolver", "skipped (--offline)"), pass("public URL", "skipped (--offline)"));
  else checks.push(await checkResolver(ctx.env), await checkPublicUrl(ctx.env));
  checks.push(await checkForwardedHeaders(home.path), await checkProviders(ctx.env));
  const healthy = checks.every((c) => c.ok);
  if (flagOption(ctx, "json")) {
    printEnvelope({ ok: healthy, status: healthy ? "healthy" : "needs_attention", data: { home, checks } });
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    const lines = checks.flatMap((c) => [
      `${c.ok ? "ok " : "FIX"}  ${c.name.padEnd(width)}  ${c.detail}`,
      ...(c.fix === null ? [] : [`     ${"".padEnd(width)}  fix: ${c.fix}`]),
    ]);
    printOut(
      [
        `errand doctor: state in ${home.path} (from ${home.source})`,
        ...lines,
        healthy ? "everything holds" : `${checks.filter((c) => !c.ok).length} thing(s) to fix`,
      ].join("\n"),
    );
  }
  return healthy ? EXIT.pass : EXIT.fail;
}

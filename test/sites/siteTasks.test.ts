// Site tasks end to end through real processes (errand site add, secret set, run) on a real
// Chromium against a login-protected fixture site whose session cookie rotates on every response:
// a login task saves the session; later tasks read behind the login with no secret, the rotated
// cookie carried from one to the next; an expired session gives login_required with the owner
// console's login page; a target off the site or an unknown site is refused before any browser;
// an account with a TOTP second factor is logged into by a task alone (password and a --totp
// secret), no handoff. Canary cookie and storage values (and every session value the site issued)
// are searched, case-insensitively, whitespace removed and decoded (percent, base64, hex), in every
// stream, file, database row and screenshot (a task's evidence, a look's image: their bytes and
// base64); another origin on the site's host counts what it receives and never gets a site cookie.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runErrand, startServe } from "../support/errandProcess.js";
import { TOOLS } from "../../src/interfaces/http/mcp/toolList.js";
import type { ErrandRun } from "../support/errandProcess.js";
import { canaryHaystack, carriesCanary } from "../secrets/support/secretSites.js";
import { LOGIN_USER, TOTP_USER, startLoginSite } from "../fixtures/loginSite.js";
import type { LoginSite } from "../fixtures/loginSite.js";
import { freshTestDatabase, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";

const PASSWORD = "Library-Pw-Canary-6161";
const COOKIE_CANARY = "Pref-Cookie-Canary-2718";
const STORAGE_CANARY = "Local-Storage-Canary-3141";
const PUBLIC_URL = "https://errand.example";
const database = await testDatabase();
const scratch = mkdtempSync(join(tmpdir(), "errand-site-e2e-"));
const home = join(scratch, "home");
let fixture: LoginSite;
let env: Record<string, string>;
const streams: string[] = [];
/** Every screenshot errand produced: task evidence read back with errand artifact get, look images. */
const images: Buffer[] = [];

before(async () => {
  fixture = await startLoginSite(PASSWORD, { cookie: COOKIE_CANARY, storage: STORAGE_CANARY });
  const allow = [fixture.site.origin, fixture.evil.origin].map((origin) => origin.replace("http://", "")).join(",");
  env = {
    ERRAND_HOME: home,
    ERRAND_OWNER_APPROVAL: "none",
    ERRAND_PUBLIC_URL: PUBLIC_URL,
    ERRAND_ALLOW_PRIVATE: allow,
    ERRAND_OWNER_PASSWORD: "Owner-Password-Canary-5555",
  };
});
after(async () => {
  await fixture.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function errand(args: string[], stdin = ""): Promise<ErrandRun> {
  const run = await runErrand(args, { env, stdin });
  streams.push(run.stdout, run.stderr);
  return run;
}

interface Envelope {
  ok: boolean;
  status: string;
  receipt: {
    operationId: string;
    status: string;
    error: { code: string; message: string } | null;
    outputs?: Record<string, { text: string }>;
    network: { blocked: { code: string }[] };
    artifacts?: { index: number }[];
  } | null;
  error: { code: string; message: string } | null;
  data: Record<string, unknown>;
}

async function run(task: Record<string, unknown>): Promise<{ code: number | null; envelope: Envelope }> {
  const file = join(scratch, `${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify({ schemaVersion: "errand.task.v1", operationId: randomUUID(), provider: "local", ...task }));
  const result = await errand(["run", file, "--json"]);
  return { code: result.code, envelope: JSON.parse(result.stdout) as Envelope };
}

const loginTask = () => ({
  site: "library",
  target: { url: `${fixture.site.origin}/login` },
  risk: "reversible_write",
  approved: true,
  secretApproval: true,
  steps: [
    { action: "fill", selector: "#user", value: LOGIN_USER },
    { action: "fill_secret", selector: "#password", secret: "library_pw" },
    { action: "click", selector: "#go" },
    { action: "expect_text", selector: "#loans", text: "books on loan" },
  ],
});

const readTask = () => ({
  site: "library",
  target: { url: `${fixture.site.origin}/account` },
  risk: "read_only",
  evidenceRetention: "full",
  evidence: { screenshots: "final" },
  steps: [
    { action: "expect_text", selector: "#loans", text: "3 books on loan" },
    { action: "extract_text", selector: "#ls", name: "storage" },
  ],
});

/** The receipt's screenshots, read back as the owner reads them (errand artifact get), kept for the canary search. */
async function keepScreenshots(envelope: Envelope): Promise<number> {
  const receipt = envelope.receipt;
  if (receipt === null) return 0;
  for (const { index } of receipt.artifacts ?? []) {
    const file = join(scratch, `${randomUUID()}.img`);
    const got = await errand(["artifact", "get", receipt.operationId, String(index), "-o", file]);
    assert.equal(got.code, 0, got.stderr);
    images.push(readFileSync(file));
    rmSync(file);
  }
  return receipt.artifacts?.length ?? 0;
}

function everyFile(dir: string): { path: string; text: string }[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path).toString("latin1") }));
}

describe("site tasks end to end", () => {
  test("a login task saves the site's session; read tasks then work behind the login with no secret, the rotated cookie and the local storage carried across tasks", async () => {
    const added = await errand([
      "site",
      "add",
      "library",
      "--origin",
      fixture.site.origin,
      "--login-url",
      `${fixture.site.origin}/login`,
      "--logged-in",
      "#sign-out",
    ]);
    assert.equal(added.code, 0, added.stderr);
    const declared = await errand(["secret", "set", "library_pw", "--site", fixture.site.origin], `${PASSWORD}\n`);
    assert.equal(declared.code, 0, declared.stderr);

    const before = await run(readTask());
    assert.equal(before.code, 4, "no session yet: refused at submit, nothing queued");
    assert.equal(before.envelope.error?.code, "login_required");
    assert.ok(before.envelope.error?.message.includes(`${PUBLIC_URL}/owner/sites/library/login`), before.envelope.error?.message);

    const login = await run(loginTask());
    assert.equal(login.envelope.receipt?.status, "PASS", JSON.stringify(login.envelope.receipt?.error));
    const shown = await errand(["site", "show", "library", "--json"]);
    assert.equal((JSON.parse(shown.stdout) as { data: { site: { loggedIn: boolean } } }).data.site.loggedIn, true);

    const viewsBefore = fixture.accountViews();
    for (const round of [1, 2]) {
      const read = await run(readTask());
      assert.equal(read.envelope.receipt?.status, "PASS", `round ${round}: ${JSON.stringify(read.envelope.receipt?.error)}`);
      assert.equal(read.envelope.receipt?.outputs?.["storage"]?.text, "storage was kept", "the site's local storage came back");
      assert.ok(
        read.envelope.receipt?.network.blocked.some((b) => b.code === "session_egress_blocked"),
        "the page's requests to the other origin on the site's host were refused",
      );
      assert.equal(await keepScreenshots(read.envelope), 1, "the logged-in page's screenshot is kept for the canary search");
    }
    assert.equal(fixture.accountViews(), viewsBefore + 2, "each read reached the logged-in page with a cookie only valid once");
  });

  test("look behind the login: errand look --site outlines the logged-in page read-only", async () => {
    const looked = await errand(["look", `${fixture.site.origin}/account`, "--site", "library", "--screenshot", "--json"]);
    assert.equal(looked.code, 0, looked.stderr);
    const envelope = JSON.parse(looked.stdout) as Envelope;
    assert.equal(envelope.status, "outlined");
    assert.match(JSON.stringify(envelope.data), /Your account/);
    const shot = (envelope.data as { screenshot?: { data: string } }).screenshot;
    assert.ok(shot !== undefined, "the look's image of the logged-in page");
    images.push(Buffer.from(shot.data, "base64"));
  });

  test("errand serve: REST lists the site as logged in, looks and runs behind its login, and has no way to change a site; no MCP tool changes one either", async () => {
    const token = (await errand(["token", "create", "--name", "sites"])).stdout.trim();
    const served = await startServe([], { env });
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${served.origin}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        streams.push(text);
        return { status: response.status, text };
      };
      const status = JSON.parse((await call("GET", "/v1/status")).text) as { sites: unknown };
      assert.deepEqual(status.sites, [{ name: "library", origins: [fixture.site.origin], loggedIn: true, grants: [] }]);
      const looked = await call("POST", "/v1/look", { url: `${fixture.site.origin}/account`, site: "library" });
      assert.equal(looked.status, 200, looked.text);
      assert.match(looked.text, /Your account/);
      const task = { schemaVersion: "errand.task.v1", operationId: randomUUID(), provider: "local", ...readTask() };
      assert.equal((await call("POST", "/v1/operations", task)).status, 201);
      const collected = JSON.parse((await call("POST", `/v1/operations/${task.operationId}/collect`, { waitSeconds: 60 })).text) as {
        receipt?: { status: string };
      };
      assert.equal(collected.receipt?.status, "PASS");
      for (const path of ["/v1/sites", "/v1/sites/library"]) {
        for (const method of ["GET", "POST", "PUT", "DELETE"])
          assert.equal(
            (await call(method, path, method === "GET" || method === "DELETE" ? undefined : { origins: ["https://evil.example"] })).status,
            404,
            `${method} ${path}`,
          );
      }
    } finally {
      await served.stop();
    }
    streams.push(served.stdout(), served.stderr());
    assert.deepEqual(
      TOOLS.map((tool) => tool.name).filter((name) => /site/i.test(name)),
      [],
      "no MCP tool manages sites",
    );
  });

  test("an expired session gives login_required (BLOCKED, before any step) with the login page and a sentence to show the person", async () => {
    fixture.expireAll();
    const expired = await run(readTask());
    assert.equal(expired.code, 4);
    assert.equal(expired.envelope.receipt?.status, "BLOCKED");
    assert.equal(expired.envelope.receipt?.error?.code, "login_required");
    assert.match(
      expired.envelope.receipt?.error?.message ?? "",
      /Ask the person to log in at https:\/\/errand\.example\/owner\/sites\/library\/login, then try again/,
    );
    const shown = await errand(["site", "show", "library", "--json"]);
    assert.deepEqual((JSON.parse(shown.stdout) as { data: { site: { loggedIn: boolean; session: string } } }).data.site.session, "expired");
    const known = await run(readTask());
    assert.equal(known.envelope.error?.code, "login_required", "a session known to be logged out is refused at submit");
    const looked = await errand(["look", `${fixture.site.origin}/account`, "--site", "library", "--json"]);
    assert.equal(looked.code, 4);
    assert.equal((JSON.parse(looked.stdout) as Envelope).error?.code, "login_required", "look: the admission step refuses it too");
  });

  test("a target off the site and an unknown site are refused before any browser, with pointed errors", async () => {
    const outside = await run({ ...readTask(), target: { url: `${fixture.evil.origin}/account` } });
    assert.equal(outside.code, 4);
    assert.equal(outside.envelope.error?.code, "site_target_outside");
    assert.match(outside.envelope.error?.message ?? "", /is not on the site library/);
    const unknown = await run({ ...readTask(), site: "nosuchsite" });
    assert.equal(unknown.envelope.error?.code, "site_unknown");
    assert.match(unknown.envelope.error?.message ?? "", /errand site add nosuchsite/);
    const looked = await errand(["look", `${fixture.evil.origin}/account`, "--site", "library", "--json"]);
    assert.equal((JSON.parse(looked.stdout) as Envelope).error?.code, "site_target_outside", "look: the admission step refuses it too");
  });

  test("a password + TOTP account is logged into by a task alone: fill_secret types the current code of a --totp secret, no handoff; reads work behind the login again", async () => {
    const seeded = await errand(["secret", "set", "library_otp", "--totp", "--site", fixture.site.origin], `${fixture.totpSeed}\n`);
    assert.equal(seeded.code, 0, seeded.stderr);
    const codesBefore = fixture.totpLogins();
    const login = await run({
      ...loginTask(),
      steps: [
        { action: "fill", selector: "#user", value: TOTP_USER },
        { action: "fill_secret", selector: "#password", secret: "library_pw" },
        { action: "click", selector: "#go" },
        { action: "fill_secret", selector: "#otp", secret: "library_otp" },
        { action: "click", selector: "#verify" },
        { action: "expect_text", selector: "#loans", text: "books on loan" },
      ],
    });
    assert.equal(login.envelope.receipt?.status, "PASS", JSON.stringify(login.envelope.receipt?.error));
    assert.equal(fixture.totpLogins(), codesBefore + 1, "the site checked a TOTP code and let the task in");
    const shown = await errand(["site", "show", "library", "--json"]);
    assert.equal((JSON.parse(shown.stdout) as { data: { site: { loggedIn: boolean } } }).data.site.loggedIn, true);
    const read = await run(readTask());
    assert.equal(read.envelope.receipt?.status, "PASS", JSON.stringify(read.envelope.receipt?.error));
    await keepScreenshots(read.envelope);
  });

  test("no site cookie or storage value, and no session value the site ever issued, is in any stream, file, database row or screenshot, or reached the other origin", () => {
    const values = fixture.issuedValues();
    assert.ok(values.length >= 5, "the site issued and rotated session values");
    assert.ok(
      values.some((value) => value.startsWith("Mfa-Pend-")),
      "the TOTP login's pending value is searched too",
    );
    const files = everyFile(home);
    assert.ok(files.some((f) => f.path.endsWith("errand.db")));
    assert.ok(images.length >= 4, `${images.length} screenshots searched`);
    // Files are searched as bytes and as their base64, as images are: a file may be an image.
    const find = canaryHaystack(
      streams.map((text, index) => [`stream ${index}: ${text.slice(0, 200)}`, text] as const),
      [
        ...files.map((file) => [file.path, Buffer.from(file.text, "latin1")] as const),
        ...images.map((image, index) => [`screenshot ${index}`, image] as const),
      ],
    );
    for (const value of [...values, PASSWORD, fixture.totpSeed, "Owner-Password-Canary-5555"]) assert.equal(find(value), null, `${value} leaked`);
    const evilRequests = fixture.evil.hits;
    for (const hit of evilRequests)
      for (const value of values) assert.ok(!carriesCanary(hit.headers, value), `the other origin received ${value} in ${hit.headers}`);
    assert.equal(evilRequests.filter((hit) => /cookie/i.test(hit.headers)).length, 0, "no request to the other origin carried a Cookie header");
  });
});

describe("site tasks on PostgreSQL", { skip: database.skip }, () => {
  test("on PostgreSQL: a login task then a read task behind the login; no session value the site issued is in any row of any table, stream or file", async () => {
    const fresh = await freshTestDatabase(database.url ?? "", "errand_sites_db");
    const pgHome = join(scratch, "pg-home");
    const saved = env;
    env = { ...env, ERRAND_HOME: pgHome, ERRAND_DATABASE_URL: fresh.url };
    const first = fixture.issuedValues().length;
    try {
      assert.equal((await errand(["migrate"])).code, 0, "a new PostgreSQL database gets its key and schema first");
      const added = await errand(["site", "add", "library", "--origin", fixture.site.origin, "--logged-in", "#sign-out"]);
      assert.equal(added.code, 0, added.stderr);
      assert.equal((await errand(["secret", "set", "library_pw", "--site", fixture.site.origin], `${PASSWORD}\n`)).code, 0);
      const login = await run(loginTask());
      assert.equal(login.envelope.receipt?.status, "PASS", JSON.stringify(login.envelope.receipt?.error));
      const read = await run(readTask());
      assert.equal(read.envelope.receipt?.status, "PASS", JSON.stringify(read.envelope.receipt?.error));
      const values = [...fixture.issuedValues().slice(first), COOKIE_CANARY, STORAGE_CANARY, PASSWORD];
      assert.ok(values.length >= 5);
      const rows = await withSchemaClient(fresh.url, undefined, async (client) => {
        const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
        const dumps: string[] = [];
        for (const { table_name } of tables.rows) dumps.push(JSON.stringify((await client.query(`SELECT * FROM "${table_name}"`)).rows));
        return dumps;
      });
      assert.ok(
        rows.some((dump) => dump.includes("aead1.")),
        "the session is stored, sealed",
      );
      for (const value of values) {
        for (const [index, dump] of rows.entries()) assert.ok(!carriesCanary(dump, value), `table ${index} carries ${value}`);
        for (const [index, text] of streams.entries()) assert.ok(!carriesCanary(text, value), `stream ${index} carries ${value}`);
        for (const file of everyFile(pgHome)) assert.ok(!carriesCanary(file.text, value), `${file.path} carries ${value}`);
      }
    } finally {
      env = saved;
      await fresh.drop();
    }
  });
});

// The library-renewal errand as a ChatGPT user would have it done, on a site the owner set up once
// and granted: counted in the tool calls the assistant makes, the bytes of tool results it reads,
// and the owner's actions after the set-up. Wall time is printed but is not the measure here.
//
// Set-up, once, by the owner on the host (not counted): `errand site add`, `errand secret set`, one
// login task run with `errand run` (its session is saved sealed), `errand site allow library --risk
// reversible_write`. Then `errand serve` under the default owner-approval policy (every write waits
// for the owner unless a grant covers it), an OAuth grant through errand's own consent page, and the
// assistant's conversation over the real MCP SDK client: errand_look behind the login, errand_run of
// the renewal, and errand_collect only if the run answered pending.
// Needs nothing beyond errand's own dependencies and Debian's Chromium.
// Usage: npx tsx bench/assistant/renewal.ts [rounds=3]   (BENCH_DUMP=1 prints each result as sent, on stderr)
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LOGIN_USER, startLoginSite } from "../../test/fixtures/loginSite.js";
import { obtainGrant } from "../../test/interfaces/http/support/oauthDance.js";
import { startServeProcess } from "../support/startServeProcess.js";

const rounds = Number(process.argv[2] ?? 3);
const MAIN = fileURLToPath(new URL("../../src/interfaces/cli/main.ts", import.meta.url));
const OWNER_PASSWORD = "a long bench owner password";
const SITE_PASSWORD = "library-password-for-the-bench";
const CALLBACK = "http://127.0.0.1:47999/callback";

const fixture = await startLoginSite(SITE_PASSWORD, { cookie: `pref-${randomUUID()}`, storage: `store-${randomUUID()}` });
const origin = fixture.site.origin;
const scratch = mkdtempSync(join(tmpdir(), "errand-bench-renewal-"));
const env: NodeJS.ProcessEnv = {
  PATH: process.env["PATH"] ?? "",
  HOME: process.env["HOME"] ?? "",
  ERRAND_HOME: join(scratch, "errand"),
  ERRAND_OWNER_PASSWORD: OWNER_PASSWORD,
  ERRAND_ALLOW_PRIVATE: new URL(origin).host,
  ERRAND_OAUTH_EXTRA_REDIRECTS: CALLBACK,
};

/** One `errand` command as the owner types it on the host; throws unless it exits 0. */
function owner(args: string[], stdin = "", extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { env: { ...env, ...extraEnv }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`errand ${args.join(" ")} exited ${code}: ${err}`))));
    child.stdin.end(stdin);
  });
}

// ---- the owner's one-time set-up --------------------------------------------------------------
await owner(["site", "add", "library", "--origin", origin, "--login-url", `${origin}/login`, "--logged-in", "#sign-out"]);
await owner(["secret", "set", "library_pw", "--site", origin], `${SITE_PASSWORD}\n`);
const loginFile = join(scratch, "login.json");
writeFileSync(
  loginFile,
  JSON.stringify({
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    provider: "local",
    site: "library",
    target: { url: `${origin}/login` },
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    steps: [
      { action: "fill", selector: "#user", value: LOGIN_USER },
      { action: "fill_secret", selector: "#password", secret: "library_pw" },
      { action: "click", selector: "#go" },
      { action: "expect_text", selector: "#loans", text: "books on loan" },
    ],
  }),
);
// The owner logs in once from the host's own command line, where they are the approver.
await owner(["run", loginFile, "--json"], "", { ERRAND_OWNER_APPROVAL: "none" });
await owner(["site", "allow", "library", "--risk", "reversible_write", "--for", "1d"]);

// ---- the assistant's conversation ------------------------------------------------------------
const served = await startServeProcess(env);
const grant = await obtainGrant((url, init) => fetch(url, init), served.origin, OWNER_PASSWORD, CALLBACK);
if (!grant.accessToken) throw new Error("no OAuth access token");
const assistant = new Client({ name: "bench-renewal", version: "1.0.0" });
await assistant.connect(
  new StreamableHTTPClientTransport(new URL(`${served.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${grant.accessToken}` } } }),
);

/** What the model reads of one tool result: its text content and its structured content, as sent. */
const bytesOf = (result: unknown): number => Buffer.byteLength(JSON.stringify(result), "utf8");

interface Conversation {
  calls: number;
  bytes: number;
  ownerActions: number;
  ms: number;
  status: string;
}

async function conversation(): Promise<Conversation> {
  const started = performance.now();
  let calls = 0;
  let bytes = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    calls += 1;
    const result = await assistant.callTool({ name, arguments: args });
    bytes += bytesOf({ content: result.content, structuredContent: result.structuredContent });
    if (process.env["BENCH_DUMP"] !== undefined)
      console.error(name, JSON.stringify({ content: result.content, structuredContent: result.structuredContent }, null, 1));
    if (result.isError === true) throw new Error(`${name}: ${JSON.stringify(result.content).slice(0, 500)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  const looked = await call("errand_look", { url: `${origin}/renew`, site: "library" });
  if (!JSON.stringify(looked["forms"] ?? []).includes("#renew-all")) throw new Error("the look behind the login did not show the renewal form");
  const renewalsBefore = fixture.renewals();
  const task = {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    label: "renew my library loans",
    site: "library",
    target: { url: `${origin}/renew` },
    risk: "reversible_write",
    approved: true,
    steps: [
      { action: "click", selector: "#renew-all" },
      { action: "expect_text", selector: "#renewed", text: "renewed" },
    ],
  };
  let answer = await call("errand_run", { task, waitSeconds: 45 });
  while (answer["status"] === "pending") answer = await call("errand_collect", { operationId: task.operationId, waitSeconds: 40 });
  const ownerActions = answer["status"] === "awaiting_approval" ? 1 : 0;
  const receipt = answer["receipt"] as { status?: string } | undefined;
  if (fixture.renewals() - renewalsBefore !== 1 && ownerActions === 0)
    throw new Error(`the site received ${fixture.renewals() - renewalsBefore} renewals, not one`);
  return { calls, bytes, ownerActions, ms: performance.now() - started, status: receipt?.status ?? String(answer["status"]) };
}

const results: Conversation[] = [];
try {
  for (let round = 0; round < rounds; round += 1) results.push(await conversation());
} finally {
  await assistant.close();
  served.child.kill("SIGTERM");
  await new Promise((resolve) => served.child.once("close", resolve));
  await fixture.close();
  rmSync(scratch, { recursive: true, force: true });
}

console.log(`library renewal on a set-up, granted site, ${rounds} conversations (errand_look behind the login, errand_run)`);
console.log("| round | tool calls | bytes read | owner actions | receipt | wall time |\n| --- | --- | --- | --- | --- | --- |");
results.forEach((r, i) => console.log(`| ${i + 1} | ${r.calls} | ${r.bytes} | ${r.ownerActions} | ${r.status} | ${r.ms.toFixed(0)} ms |`));
const worst = results.reduce((a, b) => (b.calls > a.calls || b.ownerActions > a.ownerActions ? b : a));
console.log(`target: <= 3 tool calls and 0 owner actions; worst round: ${worst.calls} calls, ${worst.ownerActions} owner actions`);
if (results.some((r) => r.status !== "PASS" || r.calls > 3 || r.ownerActions > 0)) process.exitCode = 1;

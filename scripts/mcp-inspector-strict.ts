// Runs the MCP Inspector CLI (a client nobody here wrote) in its strict mode against a fresh local
// `errand serve`: tools/list with --strict (tool-schema portability findings; exit 6 on an error),
// then tools/call of errand_capabilities, errand_task_schema and errand_status. Prints each command,
// its exit code and anything it wrote to stderr; exits 1 if any run failed or warned.
// Not part of npm test or CI: the inspector needs Node >= 22.19 and is installed apart from errand,
// never as its dependency:
//   PATH=<node 24 bin>:$PATH npm i --prefix /tmp/inspector212 @modelcontextprotocol/inspector@2.12
//   MCP_INSPECTOR_NODE=<node 24 bin>/node npx tsx scripts/mcp-inspector-strict.ts [/tmp/inspector212]
// errand itself runs on this Node, with its own ERRAND_HOME (a temporary folder, removed after) and
// an OAuth access token from a full grant (register, consent with the owner password, token).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startServe } from "../test/support/errandProcess.js";
import { obtainGrant } from "../test/interfaces/http/support/oauthDance.js";

const OWNER_PASSWORD = "inspector strict owner password";
const CALLBACK = "http://127.0.0.1:47999/callback";

const prefix = resolve(process.argv[2] ?? "/tmp/inspector212");
const launcher = join(prefix, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
const inspectorNode = process.env["MCP_INSPECTOR_NODE"] ?? "node";
if (!existsSync(launcher)) {
  console.error(`no MCP Inspector at ${launcher}; install it first (see the header of this script)`);
  process.exit(2);
}
const version = spawnSync(inspectorNode, ["--version"], { encoding: "utf8" }).stdout.trim();
const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`the inspector needs Node >= 22.19; MCP_INSPECTOR_NODE=${inspectorNode} is ${version || "missing"}`);
  process.exit(2);
}

const home = mkdtempSync(join(tmpdir(), "errand-inspector-"));
const served = await startServe([], {
  env: { ERRAND_HOME: home, ERRAND_OWNER_PASSWORD: OWNER_PASSWORD, ERRAND_OAUTH_EXTRA_REDIRECTS: CALLBACK },
  startTimeoutMs: 120_000,
});
let failed = false;
try {
  const { accessToken } = await obtainGrant(fetch, served.origin, OWNER_PASSWORD, CALLBACK);
  const common = ["--cli", `${served.origin}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${accessToken}`];
  const runs: string[][] = [
    ["--method", "tools/list", "--strict"],
    ["--method", "tools/call", "--tool-name", "errand_capabilities"],
    ["--method", "tools/call", "--tool-name", "errand_task_schema"],
    ["--method", "tools/call", "--tool-name", "errand_status"],
  ];
  console.log(`errand ${served.origin} (this Node ${process.version}); inspector ${launcher} on Node ${version}`);
  for (const run of runs) {
    const result = spawnSync(inspectorNode, [launcher, ...common, ...run], { encoding: "utf8", env: { ...process.env, HOME: home }, timeout: 60_000 });
    const stderr = result.stderr.trim();
    const clean = result.status === 0 && stderr === "";
    if (!clean) failed = true;
    console.log(
      `${clean ? "clean" : "NOT CLEAN"}: mcp-inspector --cli <errand>/mcp ${run.join(" ")} (exit ${result.status ?? result.signal}, stdout ${result.stdout.length} bytes)`,
    );
    if (stderr !== "") console.log(stderr.replaceAll(accessToken, "<token>").replace(/^/gm, "  | "));
  }
} finally {
  await served.stop();
  rmSync(home, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

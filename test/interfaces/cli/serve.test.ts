// errand serve, token and owner as real processes: the printed URLs, refusing to start unsafely,
// tokens printed once and stored only as hashes, REST and /healthz against a running server.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";

const MAIN = fileURLToPath(new URL("../../../src/interfaces/cli/main.ts", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "errand-serve-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const PASSWORD = "a long owner password";

function home(name: string): string {
  return join(scratch, name);
}

function errand(errandHome: string, args: string[], stdin = "", extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { env: { PATH: process.env["PATH"] ?? "", ERRAND_HOME: errandHome, ...extraEnv }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Served {
  child: ChildProcessWithoutNullStreams;
  origin: string;
  stdout: string;
  stop(): Promise<number | null>;
}

/** Starts errand serve on an OS-chosen loopback port and waits for its first lines. */
function serve(errandHome: string, args: string[] = [], extraEnv: Record<string, string> = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, "serve", "--port", "0", ...args], { env: { PATH: process.env["PATH"] ?? "", ERRAND_HOME: errandHome, ...extraEnv }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 20_000);
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match !== null && stdout.includes("Next:")) {
        clearTimeout(timer);
        resolve({
          child,
          origin: match[1] ?? "",
          stdout,
          stop: () => {
            child.kill("SIGTERM");
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

function storedBytes(errandHome: string): string {
  return readdirSync(errandHome)
    .filter((f) => f.startsWith("errand.db"))
    .map((f) => readFileSync(join(errandHome, f)).toString("latin1"))
    .join("");
}

describe("errand owner, token and serve", { timeout: 90_000 }, () => {
  test("owner set-password refuses a short password and stores only a scrypt hash", async () => {
    const h = home("owner");
    const short = await errand(h, ["owner", "set-password"], "short\n");
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 10 characters/);
    const ok = await errand(h, ["owner", "set-password"], `${PASSWORD}\n`);
    assert.equal(ok.code, 0, ok.stderr);
    const bytes = storedBytes(h);
    assert.ok(bytes.includes("scrypt$15$8$1$"));
    assert.ok(!bytes.includes(PASSWORD), "the password itself is never stored");
  });

  test("serve refuses to start without an owner password, or on a non-loopback address without a public https URL", async () => {
    const none = await errand(home("nopass"), ["serve", "--port", "0"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /No owner password is set.*errand owner set-password.*\[configuration_error\]/s);
    const wide = await errand(home("wide"), ["serve", "--host", "0.0.0.0", "--port", "0"], "", { ERRAND_OWNER_PASSWORD: PASSWORD });
    assert.equal(wide.code, 1);
    assert.match(wide.stderr, /--public-url/);
    const http = await errand(home("wide"), ["serve", "--public-url", "http://errand.example.com", "--port", "0"], "", { ERRAND_OWNER_PASSWORD: PASSWORD });
    assert.match(http.stderr, /must use https/);
    const redirects = await errand(home("wide"), ["serve", "--port", "0"], "", { ERRAND_OWNER_PASSWORD: PASSWORD, ERRAND_OAUTH_EXTRA_REDIRECTS: "http://evil.example/cb" });
    assert.match(redirects.stderr, /ERRAND_OAUTH_EXTRA_REDIRECTS/);
  });

  test("token create prints the token alone, once; list shows no secret; REST works with it until it is revoked", async () => {
    const h = home("tokens");
    const created = await errand(h, ["token", "create", "--name", "ci"]);
    assert.equal(created.code, 0, created.stderr);
    const lines = created.stdout.split("\n").filter((l) => l !== "");
    assert.equal(lines.length, 1);
    const token = lines[0] ?? "";
    assert.match(token, /^errand_api_[A-Za-z0-9_-]{43}$/);
    assert.match(created.stderr, /tok_[0-9a-f]{16} "ci"/);
    const listed = await errand(h, ["token", "list", "--json"]);
    const tokens = (JSON.parse(listed.stdout) as { data: { tokens: { tokenId: string; name: string; revokedAt: string | null }[] } }).data.tokens;
    assert.deepEqual(tokens.map((t) => [t.name, t.revokedAt]), [["ci", null]]);
    assert.ok(!listed.stdout.includes(token));
    assert.ok(!storedBytes(h).includes(token), "only a hash of the token is stored");

    const served = await serve(h, [], { ERRAND_OWNER_PASSWORD: PASSWORD });
    try {
      assert.match(served.stdout, new RegExp(`MCP URL: ${served.origin}/mcp`));
      assert.match(served.stdout, /Next: ChatGPT cannot reach a loopback address/);
      const health = await fetch(`${served.origin}/healthz`);
      assert.equal(await health.text(), '{"ok":true}');
      assert.equal((await fetch(`${served.origin}/v1/status`)).status, 401);
      const mcp = await fetch(`${served.origin}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      assert.equal(mcp.status, 401);
      assert.match(mcp.headers.get("www-authenticate") ?? "", /resource_metadata=/);
      const status = await fetch(`${served.origin}/v1/status`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(status.status, 200);
      assert.ok((await status.json()) !== null);
      const revoked = await errand(h, ["token", "revoke", "ci"]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal((await fetch(`${served.origin}/v1/status`, { headers: { authorization: `Bearer ${token}` } })).status, 401, "revocation applies to the running server at once");
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("with --public-url the issuer, resource and Host checks use it", async () => {
    const served = await serve(home("public"), ["--public-url", "https://errand.example.com"], { ERRAND_OWNER_PASSWORD: PASSWORD });
    try {
      assert.match(served.stdout, /MCP URL: https:\/\/errand\.example\.com\/mcp/);
      assert.match(served.stdout, /Next: in ChatGPT, Settings > Apps/);
      const prm = (await (await fetch(`${served.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
      assert.equal(prm.resource, "https://errand.example.com/mcp");
      assert.deepEqual(prm.authorization_servers, ["https://errand.example.com"]);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });
});

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import type { OperatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { RefusedBackgroundRequest } from "../../src/providers/local/refusingProxy.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";
import { memoryVault } from "../executor/memoryVault.js";

/**
 * How errand launches the local Chromium, checked on the running processes: as a non-root user it
 * keeps its own sandbox (renderers under seccomp, no --no-sandbox), and outside task contexts
 * nothing leaves the browser (every socket call of every Chromium process is traced with strace).
 */
const NOBODY = 65534;
let site: FixtureServer;

const has = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
// errand runs from this checkout as nobody, so nobody must be able to read it: a clone made inside
// `mktemp -d` (mode 0700, as in a clean-clone CI run) is not readable by any other user.
const nobodyCanRead = () => spawnSync("runuser", ["-u", "nobody", "--", "test", "-r", join(process.cwd(), "node_modules", "tsx", "package.json")]).status === 0;
const nonRootSkip =
  process.getuid?.() !== 0
    ? "not running as root, so there is no other user to run errand as"
    : !has("runuser")
      ? "runuser is missing"
      : !nobodyCanRead()
        ? `user nobody cannot read this checkout (${process.cwd()} or a folder above it is private)`
        : null;
if (nonRootSkip !== null) console.log(`# SKIPPED sandbox-as-non-root test: ${nonRootSkip}`);
const straceSkip = has("strace") ? null : "strace is missing";
if (straceSkip !== null) console.log(`# SKIPPED background-traffic test: ${straceSkip}`);

before(async () => {
  site = await startRecordingServer("127.0.0.1", {
    "/slow": (_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<!doctype html><title>slow</title><p id="p">sandboxed page</p><script>setTimeout(() => { const d = document.createElement("div"); d.id = "late"; d.textContent = "late"; document.body.append(d); }, 2500);</script>`,
        ),
    "/plain": (_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(`<!doctype html><title>t</title><form><input name="email" autocomplete="email"></form><p id="p">plain page</p>`),
  });
});
after(() => site.close());

/** Chromium processes of one user now: their command lines and seccomp mode. */
function chromiumProcesses(uid: number): { pid: number; cmdline: string; seccomp: string }[] {
  const found: { pid: number; cmdline: string; seccomp: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (statSync(`/proc/${entry}`).uid !== uid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (!cmdline.includes("chromium")) continue;
      const seccomp = /^Seccomp:\s*(\d)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? "?";
      found.push({ pid: Number(entry), cmdline, seccomp });
    } catch {
      // The process ended while being read.
    }
  }
  return found;
}

describe("how errand launches the local Chromium", () => {
  test("as a non-root user, errand run starts Chromium with its own sandbox and the task PASSes", { skip: nonRootSkip ?? false }, async () => {
    const home = mkdtempSync(join(tmpdir(), "errand-nobody-"));
    chownSync(home, NOBODY, NOBODY);
    chmodSync(home, 0o700);
    const taskFile = join(home, "task.json");
    writeFileSync(
      taskFile,
      JSON.stringify({
        schemaVersion: "errand.task.v1",
        operationId: randomUUID(),
        risk: "read_only",
        target: { url: `${site.origin}/slow` },
        steps: [
          { action: "expect_text", text: "sandboxed page" },
          { action: "wait_for", selector: "#late" },
        ],
      }),
    );
    chownSync(taskFile, NOBODY, NOBODY);
    const seen = new Map<number, { cmdline: string; seccomp: string }>();
    const sampler = setInterval(() => {
      for (const p of chromiumProcesses(NOBODY)) if (!seen.has(p.pid) || p.seccomp !== "0") seen.set(p.pid, p);
    }, 100);
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        "runuser",
        [
          "-u",
          "nobody",
          "--",
          "env",
          `HOME=${home}`,
          `ERRAND_HOME=${home}`,
          "ERRAND_OWNER_APPROVAL=none",
          process.execPath,
          "--import",
          "tsx",
          "src/interfaces/cli/main.ts",
          "run",
          taskFile,
          "--allow-private",
          site.origin.slice("http://".length),
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    }).finally(() => clearInterval(sampler));
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^PASS/);
    assert.doesNotMatch(result.stderr, /without its own sandbox/);
    const processes = [...seen.values()];
    assert.ok(processes.length >= 2, `no Chromium process of user nobody was seen: ${JSON.stringify(processes)}`);
    assert.deepEqual(
      processes.filter((p) => p.cmdline.includes("--no-sandbox")),
      [],
      "Chromium was started with --no-sandbox",
    );
    const renderers = processes.filter((p) => p.cmdline.includes("--type=renderer"));
    assert.ok(renderers.length >= 1, "no renderer was seen");
    assert.ok(
      renderers.every((r) => r.seccomp === "2"),
      `a renderer ran without its seccomp sandbox: ${JSON.stringify(renderers.map((r) => r.seccomp))}`,
    );
  });

  test(
    "outside task contexts nothing leaves the browser: no DNS query, no connection but to errand's proxies on loopback",
    { skip: straceSkip ?? false },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "errand-strace-"));
      const log = join(dir, "strace.log");
      const wrapper = join(dir, "chromium");
      writeFileSync(wrapper, `#!/bin/sh\nexec strace -f -qq -e trace=socket,connect,sendto,sendmsg,sendmmsg -o '${log}' /usr/bin/chromium "$@"\n`);
      chmodSync(wrapper, 0o755);
      const allowances = parseAllowPrivate([site.origin.slice("http://".length)]);
      assert.ok(allowances.ok);
      const resolver = createStaticResolver({});
      const policy: OperatorNetworkPolicy = {
        resolver,
        allowPrivate: allowances.value,
        guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }),
      };
      const refused: RefusedBackgroundRequest[] = [];
      const provider = createLocalProvider({
        env: { ...process.env, CHROME_PATH: wrapper },
        proxyForSession: (scope) => startSessionProxy(policy, scope),
        onBackgroundRefused: (r) => refused.push(r),
      });
      try {
        const execute = createExecutor({ provider, guard: policy.guard, secrets: memoryVault(), defaultTaskTimeoutMs: 60_000, defaultStepTimeoutMs: 30_000 });
        // A form to autofill, then 15 s of idling: long enough for the start-up checks (update and
        // account checks asked DNS for update.googleapis.com and accounts.google.com 20+ times before).
        const { receipt } = await execute(
          makeTask({
            target: { url: `${site.origin}/plain` },
            steps: [
              { action: "fill", selector: "input[name=email]", value: "a@example.com" },
              { action: "wait_for", selector: "#never", timeoutMs: 15_000 },
            ],
          }),
          makeContext(),
        );
        assert.equal(receipt.error?.code, "timeout", JSON.stringify(receipt.error));
      } finally {
        await provider.shutdown();
      }
      const lines = readFileSync(log, "utf8").split("\n");
      // The type of the socket most recently opened under each fd number (strace -f prints thread
      // ids, not processes; the latest socket() returning that number is the one being connected).
      const kindOfFd = new Map<string, string>();
      const pendingSocket = new Map<string, string>();
      const outside: string[] = [];
      for (const line of lines) {
        const tid = line.split(/\s+/)[0] ?? "";
        const opened = /socket\(AF_\w+, (SOCK_\w+)[^)]*\)\s*=\s*(\d+)/.exec(line);
        if (opened !== null) kindOfFd.set(opened[2] ?? "", opened[1] ?? "");
        // A call another thread interrupted: "socket(... <unfinished ...>", later "<... socket resumed>) = N".
        const started = /socket\(AF_\w+, (SOCK_\w+).*<unfinished/.exec(line);
        if (started !== null) pendingSocket.set(tid, started[1] ?? "");
        const resumed = /<\.\.\. socket resumed>.*=\s*(\d+)/.exec(line);
        if (resumed !== null) kindOfFd.set(resumed[1] ?? "", pendingSocket.get(tid) ?? "?");
        const connected = /connect\((\d+), \{sa_family=AF_INET6?, sin6?_port=htons\((\d+)\)[^}]*inet_(?:addr|pton)\((?:AF_INET6, )?"([^"]+)"/.exec(line);
        if (connected !== null) {
          const [, fd = "", port = "", ip = ""] = connected;
          if (ip === "127.0.0.1") continue;
          // Chromium's IPv6 reachability probe: a UDP connect() to Google's resolver that sends no
          // packet (connect on a datagram socket only picks a route). Any other destination counts.
          if (port !== "53" && kindOfFd.get(fd) === "SOCK_DGRAM" && ip === "2001:4860:4860::8888") continue;
          outside.push(line.trim());
        }
        if (/send(?:to|msg|mmsg)\(/.test(line) && /sa_family=AF_INET6?/.test(line) && !line.includes('"127.0.0.1"')) outside.push(line.trim());
      }
      assert.ok(
        lines.some((l) => l.includes("connect(")),
        "strace recorded nothing: the wrapper did not run",
      );
      assert.deepEqual(outside, [], "Chromium opened a connection or sent a datagram beyond errand's proxies");
      assert.equal(lines.filter((l) => /htons\(53\)/.test(l)).length, 0, "Chromium asked a DNS server");
      console.log(
        `# background traffic: ${refused.length} request(s) refused by the browser-wide proxy${refused.length > 0 ? `: ${refused.map((r) => r.requestLine).join("; ")}` : ""}`,
      );
    },
  );
});

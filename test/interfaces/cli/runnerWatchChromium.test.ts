// errand runner --watch --concurrency N as a real process with the real executor on local Chromium:
// a task submitted with `errand submit` (run in the test's own process, another process than the
// runner's) while the runner watches is completed with no further call, and the counting site on
// 127.0.0.1 sees its page exactly once.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { startRecordingServer } from "../../fixtures/fixtureSite.js";
import { cleanEnv } from "../../support/errandProcess.js";
import { runErrandInProcess } from "../../support/errandInProcess.js";

const MAIN = fileURLToPath(new URL("../../../src/interfaces/cli/main.ts", import.meta.url));

test(
  "errand runner --watch --concurrency 2 completes a task submitted while it watches, in real Chromium, with no further call",
  { timeout: 180_000 },
  async () => {
    const site = await startRecordingServer("127.0.0.1", {
      "/count": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end('<!doctype html><title>Count</title><p id="n">counted</p>'),
    });
    const home = mkdtempSync(join(tmpdir(), "errand-runner-watch-"));
    const env = { ERRAND_HOME: home, ERRAND_ALLOW_PRIVATE: site.origin.slice("http://".length) };
    const runner = spawn(process.execPath, ["--import", "tsx", MAIN, "runner", "--watch", "--concurrency", "2"], {
      env: cleanEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    runner.stdout.resume();
    const exited = new Promise<number | null>((resolve) => runner.on("close", resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        runner.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
          if (stderr.includes("watching the queue")) resolve();
        });
        void exited.then((code) => reject(new Error(`runner exited ${code} before watching: ${stderr}`)));
      });

      const operationId = randomUUID();
      const file = join(home, "task.json");
      writeFileSync(
        file,
        JSON.stringify({
          schemaVersion: "errand.task.v1",
          operationId,
          risk: "read_only",
          target: { url: `${site.origin}/count` },
          steps: [
            { action: "expect_text", selector: "#n", text: "counted" },
            { action: "extract_text", selector: "#n", name: "n" },
          ],
        }),
      );
      const submitted = await runErrandInProcess(["submit", file], { env });
      assert.equal(submitted.code, 0, submitted.stderr);
      // collect only reads the store: the runner alone claims and runs the task.
      const collected = await runErrandInProcess(["collect", operationId, "--wait", "--timeout", "120000", "--json"], { env });
      const envelope = JSON.parse(collected.stdout) as {
        status: string;
        receipt?: { status: string; attempts: number };
        data: { ephemeral?: { outputs: Record<string, unknown>; untrusted?: boolean; notice?: string } };
      };
      assert.equal(envelope.status, "PASS", collected.stdout + collected.stderr + stderr);
      assert.equal(envelope.receipt?.attempts, 1);
      assert.equal(envelope.data.ephemeral?.outputs["n"], "counted");
      assert.equal(envelope.data.ephemeral?.untrusted, true, "extracted values are marked as page text");
      assert.match(envelope.data.ephemeral?.notice ?? "", /Untrusted page content/);
      assert.equal(site.count("/count"), 1, "the page was fetched once");
      assert.match(stderr, new RegExp(`finished  ${operationId}: PASS`));
    } finally {
      runner.kill("SIGTERM");
      const code = await exited;
      await site.close();
      rmSync(home, { recursive: true, force: true });
      assert.equal(code, 0, stderr);
    }
  },
);

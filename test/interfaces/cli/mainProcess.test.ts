// The real `errand` process (main.ts through tsx): the in-process tests call runCli, so this proves
// main.ts hands it argv and the environment and turns its answer into the exit code and streams.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { parseEnvelope } from "./support/runInProcess.js";

const MAIN = fileURLToPath(new URL("../../../src/interfaces/cli/main.ts", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "errand-main-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function errand(args: string[], stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), MAIN, ...args], {
      cwd: scratch,
      env: { PATH: process.env["PATH"] ?? "", HOME: scratch },
      stdio: "pipe",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("the errand process", () => {
  test("exit codes, stdout and stderr come from runCli; stdin is read for -", async () => {
    const unknown = await errand(["valdiate"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Did you mean "errand validate"/);
    const invalid = await errand(["validate", "-", "--json"], "{}");
    assert.equal(invalid.code, 2);
    const body = parseEnvelope(invalid.stdout);
    assert.equal(body.ok, false);
    assert.ok((body.error?.problems?.length ?? 0) >= 4, "every missing field in one run");
  });
});

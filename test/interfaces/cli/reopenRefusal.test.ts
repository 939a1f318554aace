// A task BLOCKED because errand found no Chromium runs when the same task file is run again once
// Chromium is found (CHROME_PATH points elsewhere first); errand run in process, real Chromium.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startRecordingServer } from "../../fixtures/fixtureSite.js";
import type { FixtureServer } from "../../fixtures/fixtureSite.js";
import { baseEnv, errandInProcess } from "./support/runInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-reopen-"));
let site: FixtureServer;
before(async () => {
  site = await startRecordingServer("127.0.0.1", {
    "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Up</title><h1>Chromium found</h1>"),
  });
});
after(async () => {
  await site.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("refusals that are errand's fault do not burn the operationId", { timeout: 300_000 }, () => {
  test("BLOCKED for a missing Chromium PASSes when the same task is run again after Chromium is found; the task file is unchanged", async () => {
    const home = join(scratch, "home");
    const file = join(scratch, "task.json");
    const operationId = randomUUID();
    writeFileSync(
      file,
      JSON.stringify({
        schemaVersion: "errand.task.v1",
        operationId,
        risk: "read_only",
        target: { url: `${site.origin}/` },
        steps: [{ action: "expect_text", text: "Chromium found" }],
      }),
    );
    const env = { ERRAND_HOME: home, ERRAND_ALLOW_PRIVATE: site.origin.slice("http://".length) };

    const missing = await errandInProcess(["run", file, "--json"], baseEnv({ ...env, CHROME_PATH: join(scratch, "no-chromium-here") }));
    assert.equal(missing.code, 4, missing.stdout + missing.stderr);
    const blocked = JSON.parse(missing.stdout) as { receipt: { status: string; error: { code: string } } };
    assert.equal(blocked.receipt.error.code, "configuration_error");
    assert.equal(site.count("/"), 0, "nothing reached the site");

    const found = await errandInProcess(["run", file, "--json"], baseEnv(env));
    assert.equal(found.code, 0, found.stdout + found.stderr);
    const passed = JSON.parse(found.stdout) as { operationId: string; receipt: { status: string; attempts: number } };
    assert.equal(passed.operationId, operationId);
    assert.equal(passed.receipt.status, "PASS");
    assert.equal(site.count("/"), 1);

    const again = await errandInProcess(["run", file, "--json"], baseEnv(env));
    assert.equal(again.code, 0);
    assert.equal(site.count("/"), 1, "a PASS is never run again");
  });

  test("errand run without an operationId assigns one, prints it, and leaves the task file as written", async () => {
    const home = join(scratch, "assign");
    const file = join(scratch, "no-id.json");
    const written = JSON.stringify({
      schemaVersion: "errand.task.v1",
      risk: "read_only",
      target: { url: `${site.origin}/` },
      steps: [{ action: "expect_text", text: "Chromium found" }],
    });
    writeFileSync(file, written);
    const ran = await errandInProcess(["run", file, "--json"], baseEnv({ ERRAND_HOME: home, ERRAND_ALLOW_PRIVATE: site.origin.slice("http://".length) }));
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    const assigned = /operationId assigned: ([0-9a-f-]{36})/.exec(ran.stderr)?.[1];
    assert.ok(assigned !== undefined, ran.stderr);
    const envelope = JSON.parse(ran.stdout) as { operationId: string; receipt: { status: string } };
    assert.equal(envelope.operationId, assigned);
    assert.equal(envelope.receipt.status, "PASS");
    assert.equal(readFileSync(file, "utf8"), written, "the task file is unchanged");
  });
});

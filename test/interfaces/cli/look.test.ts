// @slow: runs tasks on real Chromium through the CLI in process (scripts/test.mjs leaves it out of --fast).
// errand look, in process (the same runCli main.ts calls) on local Chromium against the bundled
// demo site: the readable outline and the --json envelope, a refused destination, a bad URL.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startDemoSite } from "../../../src/demo/demoSite.js";
import type { DemoSite } from "../../../src/demo/demoSite.js";
import { baseEnv, errandInProcess } from "./support/runInProcess.js";

describe("errand look", { timeout: 120_000 }, () => {
  let demo: DemoSite;
  let env: Record<string, string>;
  before(async () => {
    demo = await startDemoSite();
    env = baseEnv({ ERRAND_HOME: mkdtempSync(join(tmpdir(), "errand-look-")), ERRAND_RESOLVER: "system" });
  });
  after(() => demo.close());

  test("prints the settings form with its checked selectors; --json carries the outline as data", async () => {
    const readable = await errandInProcess(["look", `${demo.origin}/settings`, "--allow-private", demo.hostPort], env);
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(readable.stdout, /^"Settings" {2}"http:\/\/127\.0\.0\.1:\d+\/settings"/, "the address is quoted like other page-chosen text");
    assert.match(readable.stdout, /password +"Password" +#password/);
    assert.match(readable.stdout, /button +"Save" +#save/);

    const json = await errandInProcess(["look", `${demo.origin}/settings`, "--allow-private", demo.hostPort, "--json"], env);
    assert.equal(json.code, 0, json.stderr);
    const envelope = JSON.parse(json.stdout) as {
      ok: boolean;
      status: string;
      data: { forms: { fields: { selector: string; type: string }[] }[]; title: { untrusted: boolean } };
    };
    assert.equal(envelope.status, "outlined");
    assert.equal(envelope.data.title.untrusted, true);
    assert.deepEqual(
      envelope.data.forms[0]?.fields.map((f) => [f.type, f.selector]),
      [
        ["text", "#display-name"],
        ["password", "#password"],
      ],
    );
    assert.deepEqual(demo.savedNames, [], "a look never submits");

    const out = join(env["ERRAND_HOME"] ?? "", "settings.png");
    const shot = await errandInProcess(["look", `${demo.origin}/settings`, "--allow-private", demo.hostPort, "--screenshot", "--out", out], env);
    assert.equal(shot.code, 0, shot.stderr);
    const sha = createHash("sha256").update(readFileSync(out)).digest("hex");
    assert.match(shot.stdout, new RegExp(`screenshot .*settings\\.png \\(\\d+ bytes, sha256 ${sha}; password fields masked\\)`));
  });

  test("a private destination without an allowance is refused (exit 4); a bad URL is invalid (exit 2)", async () => {
    const refused = await errandInProcess(["look", `${demo.origin}/settings`, "--json"], env);
    assert.equal(refused.code, 4, refused.stdout + refused.stderr);
    assert.equal((JSON.parse(refused.stdout) as { status: string }).status, "BLOCKED");
    const bad = await errandInProcess(["look", "ftp://example.com/"], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /\/url: .*\[url_scheme_not_allowed\]/);
  });
});

// errand secret set|list|delete, in process (runCli, as main.ts calls it; mainProcess.test.ts shows
// main.ts hands it the real stdin): the value comes from standard input (never argv), one trailing
// newline is dropped, list never shows it, refusals carry their codes.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { baseEnv, errandInProcess } from "./support/runInProcess.js";

/** `errand ...args` in process with only `env` (plus PATH/HOME) and `stdin`. */
const secretCli = (args: string[], options: { env: Record<string, string>; stdin?: string }) =>
  errandInProcess(args, baseEnv(options.env), options.stdin ?? "");

const scratch = mkdtempSync(join(tmpdir(), "errand-secret-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const CANARY = "Cli-Canary-Value-5150";

describe("errand secret", () => {
  test("errand secret set reads the value from piped stdin and list shows names and sites, never the value", async () => {
    const home = join(scratch, "a");
    const env = { ERRAND_HOME: home };
    const set = await secretCli(["secret", "set", "portal", "--site", "https://portal.example.com", "--site", "http://127.0.0.1:8080"], {
      env,
      stdin: `${CANARY}\n`,
    });
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stderr, /secret portal declared \(stored encrypted\); may be typed into http:\/\/127\.0\.0\.1:8080, https:\/\/portal\.example\.com/);
    const list = await secretCli(["secret", "list", "--json"], { env });
    assert.equal(list.code, 0);
    const parsed = (JSON.parse(list.stdout) as { data: { secrets: Array<Record<string, unknown>> } }).data;
    assert.deepEqual(Object.keys(parsed.secrets[0] ?? {}).sort(), ["createdAt", "name", "sites", "sourceKind", "updatedAt"]);
    const plain = await secretCli(["secret", "list"], { env });
    assert.match(plain.stdout, /^portal {2}stored/m);
    for (const run of [set, list, plain]) assert.ok(!`${run.stdout}${run.stderr}`.includes(CANARY));
    for (const file of readdirSync(home, { recursive: true }) as string[]) {
      const path = join(home, file);
      if (statSync(path).isDirectory()) continue;
      assert.ok(!readFileSync(path).toString("latin1").includes(CANARY), `${file} holds the value`);
    }
    assert.equal(statSync(home).mode & 0o777, 0o700);
    const del = await secretCli(["secret", "delete", "portal"], { env });
    assert.equal(del.code, 0);
    const again = await secretCli(["secret", "delete", "portal"], { env });
    assert.match(again.stderr, /\[secret_unknown\]/);
  });

  test("at a terminal secret set asks for the value twice without showing it: two different entries change nothing, the same twice declare it", async () => {
    const env = baseEnv({ ERRAND_HOME: join(scratch, "terminal") });
    const args = ["secret", "set", "portal", "--site", "https://portal.example.com"];
    const differ = await errandInProcess(args, env, "", [CANARY, `${CANARY}x`]);
    assert.equal(differ.code, 2, differ.stderr);
    assert.match(differ.stderr, /Value of portal \(not shown\): \nAgain: \n[\s\S]*the two entries differ; nothing was changed/);
    const none = await errandInProcess(["secret", "list"], env);
    assert.doesNotMatch(none.stdout + none.stderr, /portal/, "nothing was declared");
    const same = await errandInProcess(args, env, "", [CANARY, CANARY]);
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stderr, /secret portal declared \(stored encrypted\)/);
    assert.match((await errandInProcess(["secret", "list"], env)).stdout, /^portal {2}stored/m);
    for (const run of [differ, same]) assert.ok(!`${run.stdout}${run.stderr}`.includes(CANARY), "a typed value is never printed");
  });

  test("errand secret set refuses a value on the command line, errand's own variables and bad sites", async () => {
    const env = { ERRAND_HOME: join(scratch, "b"), ERRAND_OWNER_PASSWORD: CANARY };
    const argv = await secretCli(["secret", "set", "portal", CANARY, "--site", "https://portal.example.com"], { env, stdin: "" });
    assert.equal(argv.code, 2);
    assert.match(argv.stderr, /too many arguments/);
    const own = await secretCli(["secret", "set", "portal", "--site", "https://portal.example.com", "--from-env", "ERRAND_OWNER_PASSWORD"], { env });
    assert.equal(own.code, 2);
    assert.match(own.stderr, /\[secret_source_refused\]/);
    const site = await secretCli(["secret", "set", "portal", "--site", "https://portal.example.com/login"], { env, stdin: CANARY });
    assert.match(site.stderr, /\[invalid_secret_site\]/);
    const noSite = await secretCli(["secret", "set", "portal"], { env, stdin: CANARY });
    assert.equal(noSite.code, 2);
    const list = await secretCli(["secret", "list"], { env });
    assert.match(list.stdout, /no secrets declared/);
  });

  test("errand submit and errand run refuse an undeclared secret and a look-alike site at submit (exit 4), naming the secret and the origin; nothing is queued", async () => {
    const env = { ERRAND_HOME: join(scratch, "refusals") };
    assert.equal((await secretCli(["secret", "set", "portal", "--site", "https://portal.example.com"], { env, stdin: CANARY })).code, 0);
    const taskFile = (target: string, secret: string) => {
      const file = join(scratch, `${randomUUID()}.json`);
      const steps = [
        { action: "fill_secret", selector: "#password", secret },
        { action: "click", selector: "#login" },
        { action: "expect_text", text: "Welcome" },
      ];
      writeFileSync(
        file,
        JSON.stringify({
          schemaVersion: "errand.task.v1",
          operationId: randomUUID(),
          target: { url: target },
          risk: "reversible_write",
          approved: true,
          secretApproval: true,
          steps,
        }),
      );
      return file;
    };
    const lookalike = await secretCli(["submit", taskFile("https://portal-example.com/login", "portal"), "--json"], { env });
    assert.equal(lookalike.code, 4, lookalike.stdout + lookalike.stderr);
    const error = (JSON.parse(lookalike.stdout) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, "secret_site_mismatch");
    assert.match(error.message, /bound the secret portal to https:\/\/portal\.example\.com.*its target is https:\/\/portal-example\.com/);
    const undeclared = await secretCli(["run", taskFile("https://portal.example.com/login", "bank")], { env });
    assert.equal(undeclared.code, 4, undeclared.stderr);
    assert.match(
      undeclared.stderr,
      /secret bank, which the owner has not declared.*errand secret set bank --site https:\/\/portal\.example\.com.*\[secret_unknown\]/,
    );
    const status = await secretCli(["status", "--json"], { env });
    const phases = (JSON.parse(status.stdout) as { data: { store: { phases: Record<string, number> } } }).data.store.phases;
    assert.ok(
      Object.values(phases).every((count) => count === 0),
      JSON.stringify(phases),
    );
    for (const run of [lookalike, undeclared, status]) assert.ok(!`${run.stdout}${run.stderr}`.includes(CANARY));
  });

  test("errand secret set --totp stores a seed, list shows it as totp; a seed errand cannot use is refused with the parameter at fault and nothing is stored", async () => {
    const env = { ERRAND_HOME: join(scratch, "totp") };
    const seed = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    const set = await secretCli(["secret", "set", "library_otp", "--totp", "--site", "https://library.example.com"], {
      env,
      stdin: `otpauth://totp/Library:ada?secret=${seed}&digits=8&algorithm=SHA256\n`,
    });
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stderr, /secret library_otp declared \(TOTP seed, stored encrypted; fill_secret types its current code\)/);
    const refused: [string, RegExp][] = [
      [`otpauth://totp/x?secret=${seed}&algorithm=MD5`, /algorithm=MD5 is not usable: give SHA1, SHA256 or SHA512/],
      [`otpauth://totp/x?secret=${seed}&digits=4`, /digits=4 is not usable/],
      ["not a seed at all 1", /not base32/],
    ];
    for (const [stdin, message] of refused) {
      const run = await secretCli(["secret", "set", "other_otp", "--totp", "--site", "https://library.example.com", "--json"], { env, stdin });
      assert.equal(run.code, 2, run.stdout);
      const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
      assert.equal(error.code, "invalid_totp_seed");
      assert.match(error.message, message);
      assert.ok(!error.message.includes(seed));
    }
    const mixed = await secretCli(["secret", "set", "other_otp", "--totp", "--from-env", "OTP_SEED", "--site", "https://library.example.com"], { env });
    assert.equal(mixed.code, 2);
    const list = await secretCli(["secret", "list"], { env });
    assert.match(list.stdout, /^library_otp {2}totp/m);
    assert.ok(!list.stdout.includes("other_otp"), "nothing was stored for a refused seed");
    for (const run of [set, list]) assert.ok(!`${run.stdout}${run.stderr}`.includes(seed));
  });
});

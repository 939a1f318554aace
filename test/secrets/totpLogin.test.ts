// A site with a password and a TOTP second factor is logged into by a task alone: the owner declares
// the password and the TOTP seed with `errand secret set` (--totp, the seed piped as an otpauth://
// URI), the task types both with fill_secret, errand computes the code when it types it, and the
// site (checking the code with its own RFC 6238 implementation) lets it in. The code is scrubbed
// from the receipt, and the seed is in no receipt, stream or file. Real Chromium, real SQLite.
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openSecretStoreAt } from "../../src/app/openStores.js";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import { deriveSubkey, loadOrCreateMasterKey } from "../../src/keys/loadKey.js";
import { createSealedBox } from "../../src/keys/sealedBox.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { createSecretRegistry } from "../../src/secrets/createSecretRegistry.js";
import { sqliteStorePath } from "../../src/store/sqlite/sqliteStorePath.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";
import { loopbackGuard } from "../executor/loopbackGuard.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { baseEnv, errandInProcess } from "../interfaces/cli/support/runInProcess.js";
import { carriesCanary } from "./support/secretSites.js";

const PASSWORD = "Totp-Login-Password-77";
const KEY = randomBytes(20);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const SEED = [...KEY]
  .map((b) => b.toString(2).padStart(8, "0"))
  .join("")
  .match(/.{1,5}/g)!
  .map((bits) => ALPHABET[parseInt(bits.padEnd(5, "0"), 2)])
  .join("");

/** The site's own TOTP check (RFC 6238, SHA1, 6 digits, 30 s), written apart from errand's. */
function siteCode(step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", KEY).update(counter).digest();
  const offset = (mac[19] ?? 0) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

const scratch = mkdtempSync(join(tmpdir(), "errand-totp-"));
const provider = createLocalProvider({ env: process.env });
let site: FixtureServer;
const accepted: string[] = [];

before(async () => {
  const page = (body: string) => `<!doctype html><html><head><title>Library</title></head><body>${body}</body></html>`;
  site = await startRecordingServer("127.0.0.1", {
    "/login": (_req, res) =>
      void res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          page(
            `<form method="post" action="/session"><input id="password" name="pw" type="password"><input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code"><button id="go">Sign in</button></form>`,
          ),
        ),
    "/session": (_req, res, body) => {
      const form = new URLSearchParams(body);
      const step = Math.floor(Date.now() / 30_000);
      const otp = form.get("otp") ?? "";
      if (form.get("pw") === PASSWORD && [step - 1, step, step + 1].map(siteCode).includes(otp)) {
        accepted.push(otp);
        res.writeHead(200, { "content-type": "text/html" }).end(page(`<h1 id="title">Signed in</h1><p id="echo">code ${otp} accepted</p>`));
      } else res.writeHead(403, { "content-type": "text/html" }).end(page(`<h1 id="title">Wrong password or code</h1>`));
    },
  });
});
after(async () => {
  await provider.shutdown();
  await site.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("TOTP secrets in a browser", () => {
  test("a password + TOTP login form is logged into by a task alone; the code is scrubbed, the seed is nowhere", async () => {
    const home = join(scratch, "home");
    const env = baseEnv({ ERRAND_HOME: home });
    const streams: string[] = [];
    const cli = async (args: string[], stdin = "") => {
      const run = await errandInProcess(args, env, stdin);
      streams.push(run.stdout, run.stderr);
      return run;
    };
    assert.equal((await cli(["secret", "set", "library_pw", "--site", site.origin], PASSWORD)).code, 0);
    const set = await cli(
      ["secret", "set", "library_otp", "--totp", "--site", site.origin],
      `otpauth://totp/Library:ada?secret=${SEED}&issuer=Library&algorithm=SHA1&digits=6&period=30\n`,
    );
    assert.equal(set.code, 0, set.stderr);
    const list = await cli(["secret", "list", "--json"]);
    const kinds = Object.fromEntries(
      (JSON.parse(list.stdout) as { data: { secrets: { name: string; sourceKind: string }[] } }).data.secrets.map((s) => [s.name, s.sourceKind]),
    );
    assert.deepEqual(kinds, { library_otp: "totp", library_pw: "stored" });

    // The executor reads the registry `errand secret set` wrote, as errand run does.
    const key = loadOrCreateMasterKey(home);
    const store = openSecretStoreAt(
      { backend: "sqlite", path: sqliteStorePath(home), busyTimeoutMs: 1000 },
      { sealer: createJournalSealer(deriveSubkey(key, "journal")) },
    );
    try {
      const secrets = createSecretRegistry({ store, box: createSealedBox(deriveSubkey(key, "secrets")), env: {}, errandHome: home });
      const execute = createExecutor({ provider, guard: loopbackGuard([site.origin]), secrets, defaultTaskTimeoutMs: 20_000, defaultStepTimeoutMs: 5_000 });
      const task = makeTask({
        target: { url: `${site.origin}/login` },
        risk: "reversible_write",
        approved: true,
        secretApproval: true,
        evidenceRetention: "full",
        steps: [
          { action: "fill_secret", selector: "#password", secret: "library_pw" },
          { action: "fill_secret", selector: "#otp", secret: "library_otp" },
          { action: "click", selector: "#go" },
          { action: "expect_text", selector: "#title", text: "Signed in" },
          { action: "extract_text", selector: "#echo", name: "echo" },
        ],
      });
      const outcome = await execute(task, makeContext());
      assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
      assert.equal(accepted.length, 1, "the site accepted one code");
      const code = accepted[0] ?? "";
      const shown = JSON.stringify(outcome);
      assert.ok(!shown.includes(code), "the code typed is scrubbed from the receipt and outputs");
      assert.match(shown, /code \[REDACTED\] accepted/);
      streams.push(shown);
    } finally {
      await store.close();
    }
    for (const text of streams) {
      assert.ok(!carriesCanary(text, SEED), "the seed is in no stream or receipt");
      assert.ok(!carriesCanary(text, PASSWORD));
    }
    for (const file of readdirSync(home, { recursive: true }) as string[]) {
      const path = join(home, file);
      if (statSync(path).isDirectory()) continue;
      assert.ok(!readFileSync(path).toString("latin1").toUpperCase().includes(SEED), `${file} holds the seed in clear`);
    }
  });
});

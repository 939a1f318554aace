// errand token create --json / --scope metrics / --expires and token list's expiry and last use, in process.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { baseEnv, errandInProcess } from "./support/runInProcess.js";

const home = mkdtempSync(join(tmpdir(), "errand-token-"));
after(() => rmSync(home, { recursive: true, force: true }));
const env = baseEnv({ ERRAND_HOME: home });

describe("errand token lifecycle", () => {
  test("create --json prints the one envelope with the token in data; --expires and --scope metrics are recorded and listed", async () => {
    const created = await errandInProcess(["token", "create", "--name", "prometheus", "--scope", "metrics", "--expires", "90d", "--json"], env);
    assert.equal(created.code, 0, created.stderr);
    const lines = created.stdout.trim().split("\n");
    assert.equal(lines.length, 1, "one line: the envelope alone");
    const envelope = JSON.parse(lines[0] ?? "") as { ok: boolean; status: string; data: { token: string; tokenId: string; scope: string; expiresAt: string } };
    assert.equal(envelope.ok, true);
    assert.equal(envelope.status, "created");
    assert.match(envelope.data.token, /^errand_mt_/);
    assert.equal(envelope.data.scope, "metrics");
    const days = (Date.parse(envelope.data.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 89.9 && days <= 90, String(days));
    const plain = await errandInProcess(["token", "create", "--name", "ci"], env);
    assert.match(plain.stdout.trim(), /^errand_api_[A-Za-z0-9_-]+$/, "without --json the token alone");
    assert.match(plain.stderr, /it does not expire/);
    const listed = await errandInProcess(["token", "list", "--json"], env);
    const tokens = (JSON.parse(listed.stdout) as { data: { tokens: { name: string; scope: string; expiresAt: string | null; lastUsedAt: string | null }[] } })
      .data.tokens;
    assert.deepEqual(
      tokens.map((t) => [t.name, t.scope, t.expiresAt === null, t.lastUsedAt]),
      [
        ["prometheus", "metrics", false, null],
        ["ci", "own", true, null],
      ],
    );
    const text = await errandInProcess(["token", "list"], env);
    assert.match(text.stdout, /prometheus {2}scope metrics {2}created \S+ {2}expires \S+ {2}last used never/);
  });

  test("--expires is refused naming the rule when it is not a duration from a minute to ten years, and belongs to create", async () => {
    for (const bad of ["90", "1.5d", "30s", "4000d", "soon"]) {
      const refused = await errandInProcess(["token", "create", "--name", "x", "--expires", bad], env);
      assert.equal(refused.code, 2, bad);
      assert.match(refused.stderr, /--expires is a duration from 1m to 3650d/, bad);
    }
    assert.equal((await errandInProcess(["token", "list", "--expires", "1d"], env)).code, 2);
    assert.match((await errandInProcess(["token", "create", "--name", "x", "--scope", "root"], env)).stderr, /"metrics"/);
  });
});

// errand site allow / revoke as the owner runs them: a grant is given with its risk, secrets and
// duration, consequential must be spelled out and warns, listings show the live grants, revoke ends them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { runErrandInProcess } from "../../support/errandInProcess.js";

const home = mkdtempSync(join(tmpdir(), "errand-site-allow-"));
after(() => rmSync(home, { recursive: true, force: true }));
const errand = (args: string[]) => runErrandInProcess(args, { env: { ERRAND_HOME: home } });

interface Listed {
  data: { sites: { name: string; grants: { id: string; risk: string; secrets: string[]; expiresAt: string }[] }[] };
}

test("siteAllow: errand site allow gives a grant (default 30d, at most 90d; consequential spelled out and warned about), site list shows it, site revoke ends it", async () => {
  assert.equal((await errand(["site", "add", "library", "--origin", "https://library.example.com"])).code, 0);
  const noRisk = await errand(["site", "allow", "library"]);
  assert.equal(noRisk.code, 2, noRisk.stderr);
  assert.match(noRisk.stderr, /--risk reversible_write/);
  const tooLong = await errand(["site", "allow", "library", "--risk", "reversible_write", "--for", "91d"]);
  assert.equal(tooLong.code, 2);
  assert.match(tooLong.stderr, /at most 90d/);
  const allowed = await errand(["site", "allow", "library", "--risk", "reversible_write", "--secret", "LIB_PIN", "--json"]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.doesNotMatch(allowed.stderr, /WARNING/);
  const grant = (JSON.parse(allowed.stdout) as { data: { grant: { id: string; grantedAt: string; expiresAt: string } } }).data.grant;
  assert.equal((Date.parse(grant.expiresAt) - Date.parse(grant.grantedAt)) / 86_400_000, 30);
  const bold = await errand(["site", "allow", "library", "--risk", "consequential", "--for", "12h"]);
  assert.equal(bold.code, 0, bold.stderr);
  assert.match(bold.stderr, /WARNING: tasks on library labelled consequential/);
  const listed = JSON.parse((await errand(["site", "list", "--json"])).stdout) as Listed;
  assert.deepEqual(
    listed.data.sites[0]?.grants.map((g) => [g.risk, g.secrets]),
    [
      ["reversible_write", ["LIB_PIN"]],
      ["consequential", []],
    ],
  );
  const revoked = await errand(["site", "revoke", "library"]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stderr, /revoked 2 grants on library/);
  assert.deepEqual((JSON.parse((await errand(["site", "list", "--json"])).stdout) as Listed).data.sites[0]?.grants, []);
  assert.equal((await errand(["site", "show", "library", "--risk", "consequential"])).code, 2, "--risk belongs to site allow");
});

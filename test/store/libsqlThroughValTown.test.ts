// The libSQL store on Val Town's std/sqlite: the store's own tests (the Store conformance suite, the
// batch guard, the access, secret, site, provider, file and artifact stores, and four connections
// under contention) run again, every store now on valTownSqliteClient over a std/sqlite stand-in
// (test/fixtures/valTownSqliteStandIn.ts: std/sqlite's interface and JSON wire, on a local file:
// database). The tests are imported, not copied: the switch in test/fixtures/libsqlTestClient.ts
// holds for this file's process only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { libsqlTestClientsOpenedThroughValTown, openLibsqlTestClientsThroughValTown } from "../fixtures/libsqlTestClient.js";

openLibsqlTestClientsThroughValTown();

await import("./libsqlConformance.test.js");
await import("./libsql/batchGuard.test.js");
await import("./libsql/libsqlAccessStore.test.js");
await import("./libsql/libsqlSecretAndSiteStores.test.js");
await import("./libsql/libsqlProviderStore.test.js");
await import("./libsql/libsqlFileAndArtifactStores.test.js");
await import("./libsql/libsqlContention.test.js");

test("libsql through Val Town: the tests above opened their stores through the std/sqlite adapter", () => {
  // Runs after the imported tests (node:test runs top-level tests in the order they were declared).
  const opened = libsqlTestClientsOpenedThroughValTown();
  assert.ok(opened >= 40, `only ${opened} clients went through the adapter`);
});

// The libSQL backend, on @libsql/client over a local file: database, passes the Store conformance
// suite (test/store/conformance/storeConformance.ts); the same suite runs through Val Town's
// std/sqlite adapter when test/store/libsqlThroughValTown.test.ts selects it (test/fixtures/libsqlTestClient.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openLibsqlClient } from "../../src/store/libsql/openLibsqlClient.js";
import { libsqlTestClientLabel, openLibsqlTestClient } from "../fixtures/libsqlTestClient.js";
import { openLibsqlStore } from "../../src/store/libsql/openLibsqlStore.js";
import { statement } from "../../src/store/libsql/LibsqlClientLike.js";
import { storeConformance } from "./conformance/storeConformance.js";
import type { JournalSealer } from "../../src/journal/createJournalSealer.js";
import type { Store } from "../../src/store/Store.js";

const COLUMNS = new Set(["phase", "attempts", "mutation_boundary", "risk", "submitted_by"]);

storeConformance(libsqlTestClientLabel(), async ({ sealer, clock }) => {
  const home = mkdtempSync(join(tmpdir(), "errand-libsql-conformance-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const open = async (key: JournalSealer): Promise<Store> => openLibsqlStore({ client: await openLibsqlTestClient({ url }), where: url, sealer: key, clock });
  const store = await open(sealer);
  const others: Promise<Store>[] = [];
  return {
    store,
    // The suite's second connection is synchronous to open; the first call on it waits for the open.
    another() {
      const opening = open(sealer);
      others.push(opening);
      return deferredStore(opening);
    },
    async tamper(operationId, column, value) {
      if (!COLUMNS.has(column)) throw new Error(`not a column the suite edits: ${column}`);
      const client = await openLibsqlClient({ url });
      try {
        await client.execute(statement(`UPDATE operations SET ${column} = ? WHERE operation_id = ?`, value, operationId));
      } finally {
        client.close?.();
      }
    },
    async close() {
      await store.close();
      await Promise.allSettled(others.map(async (other) => (await other).close()));
      rmSync(home, { recursive: true, force: true });
    },
  };
});

/** A Store whose every method waits for `opening` first. */
function deferredStore(opening: Promise<Store>): Store {
  return new Proxy({} as Store, {
    get(_target, property: string | symbol) {
      const name = property as keyof Store;
      if (property === "then") return undefined;
      if (name === "backend") return "libsql";
      if (name === "takeIntegrityRefusals") return () => [];
      return async (...args: unknown[]) => {
        const store = await opening;
        return (store[name] as (...a: unknown[]) => unknown).apply(store, args);
      };
    },
  });
}

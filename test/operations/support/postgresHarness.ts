// A harness on a fresh PostgreSQL database, shared by the tests that start runner processes on it.
// Not a test file.
import type { StoreLocation } from "../../../src/app/storeLocation.js";
import { freshTestDatabase } from "../../fixtures/testPostgres.js";
import type { Harness } from "./harness.js";
import { openHarness } from "./harness.js";

export type PostgresHarness = Harness & { databaseUrl: string };

/** Opens a harness on a new database named with `prefix` on the server at `url`; `close` drops it. */
export async function openPostgresHarness(url: string, prefix: string): Promise<PostgresHarness> {
  const fresh = await freshTestDatabase(url, prefix);
  const location: StoreLocation = { backend: "postgres", url: fresh.url };
  const h = await openHarness({ location });
  return {
    ...h,
    databaseUrl: fresh.url,
    async close() {
      await h.close();
      await fresh.drop();
    },
  };
}

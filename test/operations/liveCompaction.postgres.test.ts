// Scheduled journal compaction on a live PostgreSQL store (support/liveCompactionSuite.ts), each
// test on a fresh schema of the run's test database.
import { after } from "node:test";
import { dropSchemas, freshPostgresLocation, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { liveCompactionSuite } from "./support/liveCompactionSuite.js";
import { openHarness } from "./support/harness.js";

const database = await testDatabase();
const url = database.url ?? "";
const schemas: string[] = [];
after(() => (database.skip === undefined ? dropSchemas(url, schemas) : Promise.resolve()));

liveCompactionSuite(
  "PostgreSQL",
  async (options) => {
    const location = freshPostgresLocation(url, schemas);
    const h = await openHarness({ ...options, location });
    return { h, exec: async (sql) => void (await withSchemaClient(url, location.schema, (client) => client.query(sql))) };
  },
  database.skip === undefined ? {} : { skip: database.skip },
);

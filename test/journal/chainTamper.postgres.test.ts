// Per-operation chains and checkpoints under tampering, on PostgreSQL (test/journal/support/chainTamperSuite.ts),
// each test on a fresh schema of the run's fresh database (test/fixtures/testPostgres.ts).
import { openPostgresStore } from "../../src/store/postgres/openPostgresStore.js";
import { dropSchema, freshSchema, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { chainTamperSuite } from "./support/chainTamperSuite.js";

const database = await testDatabase();

chainTamperSuite(
  "postgres",
  ({ sealer, clock }) => {
    const url = database.url ?? "";
    const schema = freshSchema();
    const store = openPostgresStore({ connectionString: url, schema, sealer, clock });
    return Promise.resolve({
      store,
      exec: async (sql) => void (await withSchemaClient(url, schema, (client) => client.query(sql))),
      rows: async (sql) => (await withSchemaClient(url, schema, (client) => client.query(sql))).rows as Record<string, unknown>[],
      async close() {
        await store.close();
        await dropSchema(url, schema);
      },
    });
  },
  database.skip === undefined ? {} : { skip: database.skip },
);

// The PostgreSQL backend passes the Store conformance suite (test/store/conformance/storeConformance.ts),
// each test on a fresh schema of the run's fresh database (see test/fixtures/testPostgres.ts).
import { openPostgresStore } from "../../src/store/postgres/openPostgresStore.js";
import { dropSchema, freshSchema, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { storeConformance } from "./conformance/storeConformance.js";

const COLUMNS = new Set(["phase", "attempts", "mutation_boundary", "risk", "submitted_by"]);
const database = await testDatabase();

storeConformance(
  "postgres",
  ({ sealer, clock }) => {
    const url = database.url ?? "";
    const schema = freshSchema();
    const open = () => openPostgresStore({ connectionString: url, schema, sealer, clock });
    const store = open();
    return Promise.resolve({
      store,
      another: open,
      async tamper(operationId, column, value) {
        if (!COLUMNS.has(column)) throw new Error(`not a column the suite edits: ${column}`);
        await withSchemaClient(url, schema, (client) => client.query(`UPDATE operations SET ${column} = $1 WHERE operation_id = $2`, [value, operationId]));
      },
      async close() {
        await store.close();
        await dropSchema(url, schema);
      },
    });
  },
  database.skip === undefined ? {} : { skip: database.skip },
);

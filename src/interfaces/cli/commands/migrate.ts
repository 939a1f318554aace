import { openOperationStore } from "../../../app/openStores.js";
import { describeStoreLocation, storeLocationFor } from "../../../app/storeLocation.js";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { createJournalSealer } from "../../../journal/createJournalSealer.js";
import { deriveSubkey } from "../../../keys/loadKey.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { masterKeyFor } from "../../../app/masterKey.js";
import { printOut } from "../output.js";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "create or upgrade the database schema (SQLite or PostgreSQL) and print its version",
  options: { json: { type: "boolean" } },
  maxPositionals: 0,
  run: runMigrate,
  help: `errand migrate [--database-url URL] [--json]
  Applies every migration this errand knows that the database lacks, each recorded in the
  transaction that applies it, and creates the journal head; then prints the schema version.
  Every command migrates on first use too; run this once when you set up a PostgreSQL database
  (ERRAND_DATABASE_URL or --database-url; without either, ERRAND_HOME/errand.db). On PostgreSQL it
  also creates ERRAND_HOME/keys/master.key when there is none: copy that file to every machine
  that runs errand on the same database. On SQLite a migration first copies the database to
  errand.db.pre-vN-TIME-PID.bak and keeps the newest ERRAND_KEEP_MIGRATION_BACKUPS (default 3)
  such copies. A database written by a newer errand is refused
  (store_schema_too_new); an unreachable server is store_unavailable.
  --json: the envelope of docs/CLI.md; data {backend, database, schemaVersion}.
  Exit 0 migrated (or already current), 1 refused or unreachable.`,
};

async function runMigrate(ctx: CommandContext): Promise<number> {
  const config = resolveRuntimeConfig(ctx.env);
  const location = storeLocationFor(config);
  const key = masterKeyFor(config.errandHome, "setup", location);
  const store = openOperationStore(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) });
  try {
    const schemaVersion = await store.schemaVersion();
    // The first statement proves the server answers and the journal head is readable under this key.
    await store.readJournalHead();
    const data = { backend: location.backend, database: describeStoreLocation(location), schemaVersion };
    if (flagOption(ctx, "json")) printEnvelope({ ok: true, status: "done", data });
    else printOut(`${location.backend} database ${data.database}: schema version ${schemaVersion}`);
    return EXIT.pass;
  } finally {
    await store.close();
  }
}

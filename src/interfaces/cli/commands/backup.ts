import { join } from "node:path";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure } from "../operationOutput.js";
import { printOut } from "../output.js";
import { UsageError } from "../usageError.js";

/** Said after every backup: the database alone is not enough, and with the key it is everything. */
export const KEY_ADVICE =
  "The master key is NOT in this backup. Keep a copy of keys/master.key apart from it (offline, or in a password manager): without that key the journal cannot be verified, API tokens and OAuth grants stop working and stored secrets cannot be opened; with the key, the backup is as sensitive as errand itself.";

export const POSTGRES_ADVICE =
  'With a PostgreSQL store, back up with pg_dump instead: pg_dump --format=custom --file=errand.dump "$DATABASE_URL" (docs/OPERATIONS.md).';

export const backupCommand: Command = {
  name: "backup",
  summary: "write a consistent copy of the database while errand runs (keep the key apart)",
  options: { out: { type: "string" }, json: { type: "boolean" } },
  maxPositionals: 0,
  run: runBackup,
  help: `errand backup --out FILE [--json]
  Copies ERRAND_HOME/errand.db to FILE as one read snapshot (SQLite's VACUUM INTO): consistent even
  while the server and runners write; FILE appears only once the copy is complete and on disk. FILE must not exist; it is created 0600. The master key
  (ERRAND_HOME/keys/master.key) is not included: keep it apart. PostgreSQL: use pg_dump.
  Restore with "errand restore FILE" into an empty ERRAND_HOME holding the same key.
  --json: the envelope of docs/CLI.md; data {file, bytes, schemaVersion, operations, journalEvents, keyFile}.
  Exit 0 written, 1 nothing to back up or the copy failed, 2 usage.`,
};

async function runBackup(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const out = stringOption(ctx, "out");
  if (out === undefined) throw new UsageError("backup needs --out FILE");
  const config = resolveRuntimeConfig(ctx.env);
  if (config.databaseUrl !== null) {
    return printFailure(
      {
        code: "configuration_error",
        message:
          "errand backup copies the SQLite file ERRAND_HOME/errand.db; with ERRAND_DATABASE_URL the state is in PostgreSQL: back it up with pg_dump (docs/OPERATIONS.md, PostgreSQL), and keep ERRAND_HOME/keys/master.key apart.",
      },
      json,
    );
  }
  const [{ backupSqliteDatabase, BackupError }, { sqliteStorePath }] = await Promise.all([
    import("../../../store/sqlite/sqliteBackup.js"),
    import("../../../store/sqlite/sqliteStorePath.js"),
  ]);
  try {
    const facts = await backupSqliteDatabase(sqliteStorePath(config.errandHome), out);
    const keyFile = join(config.errandHome, "keys", "master.key");
    if (json) {
      printEnvelope({ ok: true, status: "done", data: { file: out, ...facts, keyFile, keyIncluded: false, advice: KEY_ADVICE } });
    } else {
      printOut(
        `backup written: ${out} (${facts.bytes} bytes, schema ${facts.schemaVersion}, ${facts.operations} operation(s), ${facts.journalEvents} journal event(s))`,
      );
      printOut(`${KEY_ADVICE}\n  key: ${keyFile}\n${POSTGRES_ADVICE}`);
    }
    return EXIT.pass;
  } catch (error) {
    if (error instanceof BackupError) return printFailure({ code: "configuration_error", message: error.message }, json);
    throw error;
  }
}

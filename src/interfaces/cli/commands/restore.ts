import { closeSync, constants, existsSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { readHexKeyFile } from "../../../keys/loadKey.js";
import { securePrivateDirectory } from "../../../keys/privateFiles.js";
import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure } from "../operationOutput.js";
import { printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { withOperations } from "../withOperations.js";

export const restoreCommand: Command = {
  name: "restore",
  summary: "restore a backup into an empty ERRAND_HOME and verify its journal",
  options: { "key-file": { type: "string" }, json: { type: "boolean" } },
  maxPositionals: 1,
  run: runRestore,
  help: `errand restore FILE [--key-file KEY] [--json]
  Restores a copy made by "errand backup" as ERRAND_HOME/errand.db. ERRAND_HOME must not hold a
  database yet. The backup's master key must be there as keys/master.key, or be given with
  --key-file (copied in, 0600). The copy is checked (SQLite integrity, errand's tables) before it is
  written, and the journal is verified with the key afterwards, as "errand journal verify" does.
  --json: the envelope of docs/CLI.md; status restored|tampered, data {file, bytes, schemaVersion, journal}.
  Exit 0 restored and intact, 1 refused or the journal does not verify with this key, 2 usage.`,
};

async function runRestore(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const file = ctx.positionals[0];
  if (file === undefined) throw new UsageError("restore needs the backup FILE");
  const config = resolveRuntimeConfig(ctx.env);
  if (config.databaseUrl !== null) {
    return printFailure(
      {
        code: "configuration_error",
        message:
          "errand restore writes the SQLite file ERRAND_HOME/errand.db; with ERRAND_DATABASE_URL restore a pg_dump into an empty database with pg_restore, then run errand journal verify (docs/OPERATIONS.md, PostgreSQL).",
      },
      json,
    );
  }
  const home = config.errandHome;
  const [{ restoreSqliteDatabase, inspectSqliteCopy, BackupError }, { sqliteStorePath }] = await Promise.all([
    import("../../../store/sqlite/sqliteBackup.js"),
    import("../../../store/sqlite/sqliteStorePath.js"),
  ]);
  const database = sqliteStorePath(home);
  const refuse = (message: string) => printFailure({ code: "configuration_error", message }, json);
  if (existsSync(database))
    return refuse(`${home} already holds a database; restore only into an empty ERRAND_HOME (move ${database} away first, or point ERRAND_HOME elsewhere).`);
  try {
    inspectSqliteCopy(file);
  } catch (error) {
    if (error instanceof BackupError) return refuse(error.message);
    throw error;
  }
  const keyPath = join(home, "keys", "master.key");
  const keyFile = stringOption(ctx, "key-file");
  securePrivateDirectory(home);
  securePrivateDirectory(join(home, "keys"));
  if (keyFile !== undefined) {
    const key = readHexKeyFile(keyFile);
    if (existsSync(keyPath)) {
      if (!readHexKeyFile(keyPath).equals(key)) return refuse(`${keyPath} holds a different key than ${keyFile}; restore into an empty ERRAND_HOME.`);
    } else {
      const fd = openSync(keyPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        writeSync(fd, `${key.toString("hex")}\n`);
      } finally {
        closeSync(fd);
      }
    }
  } else if (!existsSync(keyPath)) {
    return refuse(
      `No master key at ${keyPath}. Put the key that belongs to this backup there (mode 600) or pass --key-file KEY; a new key could not verify the journal.`,
    );
  }
  let facts;
  try {
    facts = await restoreSqliteDatabase(file, database);
  } catch (error) {
    if (error instanceof BackupError) return refuse(error.message);
    throw error;
  }
  return withOperations(ctx, async ({ service }) => {
    const verdict = await service.verifyJournal();
    if (json) {
      printEnvelope({
        ok: verdict.ok,
        status: verdict.ok ? "done" : "tampered",
        ...(verdict.ok ? {} : { error: { code: "journal_tampered", message: `Restored, but the journal does not verify with this key: ${verdict.message}` } }),
        data: { file, database, ...facts, journal: verdict },
      });
    } else if (verdict.ok) {
      printOut(
        `restored ${file} as ${database} (schema ${facts.schemaVersion}, ${facts.operations} operation(s)); journal intact: ${verdict.events} events verified with ${keyPath}`,
      );
    } else {
      printOut(
        `restored ${file} as ${database}, but the journal does NOT verify with ${keyPath}: ${verdict.message} [${verdict.fault}]. Is this the key that belongs to the backup?`,
      );
    }
    return verdict.ok ? EXIT.pass : EXIT.fail;
  });
}

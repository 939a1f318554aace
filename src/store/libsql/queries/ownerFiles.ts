import type { NewOwnerFile, OwnerFileInfo, StoredOwnerFile } from "../../FileStore.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { queryRow, queryRows, rowsIn } from "../libsqlRows.js";

interface OwnerFileRow {
  name: string;
  bytes: number;
  sha256: string;
  sealed: string;
  created_ms: number;
}

/** Adds or replaces one file (its value sealed by the caller); answers whether it was new, read in the same write batch. */
export async function putFile(ctx: LibsqlContext, file: NewOwnerFile): Promise<{ created: boolean }> {
  const [existed] = await ctx.client.batch(
    [
      statement("SELECT 1 AS present FROM owner_files WHERE name = ?", file.name),
      statement(
        "INSERT INTO owner_files (name, bytes, sha256, sealed, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, sealed = excluded.sealed, created_ms = excluded.created_ms",
        file.name,
        file.bytes,
        file.sha256,
        file.sealed,
        ctx.clock(),
      ),
    ],
    "write",
  );
  return { created: rowsIn(existed).length === 0 };
}

export async function readFile(ctx: LibsqlContext, name: string): Promise<StoredOwnerFile | null> {
  const row = await queryRow<OwnerFileRow>(ctx.client, "SELECT * FROM owner_files WHERE name = ?", name);
  return row === undefined ? null : { name: row.name, bytes: row.bytes, sha256: row.sha256, sealed: row.sealed, createdMs: row.created_ms };
}

export async function listFiles(ctx: LibsqlContext): Promise<OwnerFileInfo[]> {
  const rows = await queryRows<Omit<OwnerFileRow, "sealed">>(ctx.client, "SELECT name, bytes, sha256, created_ms FROM owner_files ORDER BY name");
  return rows.map((row) => ({ name: row.name, bytes: row.bytes, sha256: row.sha256, createdMs: row.created_ms }));
}

export async function removeFile(ctx: LibsqlContext, name: string): Promise<boolean> {
  return (await ctx.client.execute(statement("DELETE FROM owner_files WHERE name = ?", name))).rowsAffected > 0;
}

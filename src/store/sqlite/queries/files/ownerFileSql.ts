import type { NewOwnerFile, OwnerFileInfo, StoredOwnerFile } from "../../../FileStore.js";
import type { SqliteContext } from "../../sqliteContext.js";

interface OwnerFileRow {
  name: string;
  bytes: number;
  sha256: string;
  sealed: string;
  created_ms: number;
}

/** Adds or replaces one file; answers whether it was new. */
export function putOwnerFile(ctx: SqliteContext, file: NewOwnerFile): { created: boolean } {
  const existed = ctx.sql("SELECT 1 FROM owner_files WHERE name = ?").get(file.name) !== undefined;
  ctx
    .sql(
      "INSERT INTO owner_files (name, bytes, sha256, sealed, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, sealed = excluded.sealed, created_ms = excluded.created_ms",
    )
    .run(file.name, file.bytes, file.sha256, file.sealed, ctx.clock());
  return { created: !existed };
}

export function readOwnerFile(ctx: SqliteContext, name: string): StoredOwnerFile | null {
  const row = ctx.sql("SELECT * FROM owner_files WHERE name = ?").get(name) as OwnerFileRow | undefined;
  return row === undefined ? null : { name: row.name, bytes: row.bytes, sha256: row.sha256, sealed: row.sealed, createdMs: row.created_ms };
}

export function listOwnerFiles(ctx: SqliteContext): OwnerFileInfo[] {
  const rows = ctx.sql("SELECT name, bytes, sha256, created_ms FROM owner_files ORDER BY name").all() as Omit<OwnerFileRow, "sealed">[];
  return rows.map((row) => ({ name: row.name, bytes: row.bytes, sha256: row.sha256, createdMs: row.created_ms }));
}

export function removeOwnerFile(ctx: SqliteContext, name: string): boolean {
  return ctx.sql("DELETE FROM owner_files WHERE name = ?").run(name).changes > 0;
}

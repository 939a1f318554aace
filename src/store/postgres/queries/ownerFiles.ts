import type { NewOwnerFile, OwnerFileInfo, StoredOwnerFile } from "../../FileStore.js";
import type { PgTx } from "../pgContext.js";

interface OwnerFileRow {
  name: string;
  bytes: number;
  sha256: string;
  sealed: string;
  created_ms: number;
}

/** Adds or replaces one file; answers whether it was new. */
export async function putOwnerFile(tx: PgTx, file: NewOwnerFile): Promise<{ created: boolean }> {
  const existed = (await tx.one("SELECT 1 FROM owner_files WHERE name = $1 FOR UPDATE", [file.name])) !== undefined;
  await tx.run(
    "INSERT INTO owner_files (name, bytes, sha256, sealed, created_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, sealed = excluded.sealed, created_ms = excluded.created_ms",
    [file.name, file.bytes, file.sha256, file.sealed, tx.now],
  );
  return { created: !existed };
}

export async function readOwnerFile(tx: PgTx, name: string): Promise<StoredOwnerFile | null> {
  const row = await tx.one<OwnerFileRow>("SELECT * FROM owner_files WHERE name = $1", [name]);
  return row === undefined ? null : { name: row.name, bytes: Number(row.bytes), sha256: row.sha256, sealed: row.sealed, createdMs: Number(row.created_ms) };
}

export async function listOwnerFiles(tx: PgTx): Promise<OwnerFileInfo[]> {
  const rows = await tx.rows<Omit<OwnerFileRow, "sealed">>("SELECT name, bytes, sha256, created_ms FROM owner_files ORDER BY name");
  return rows.map((row) => ({ name: row.name, bytes: Number(row.bytes), sha256: row.sha256, createdMs: Number(row.created_ms) }));
}

export async function removeOwnerFile(tx: PgTx, name: string): Promise<boolean> {
  return (await tx.run("DELETE FROM owner_files WHERE name = $1", [name])) > 0;
}

import { createHash } from "node:crypto";
import type { SealedBox } from "../keys/sealedBox.js";
import { reseal } from "../keys/sealedBox.js";
import type { FileStore, OwnerFileInfo } from "../store/FileStore.js";
import { fileNameProblem } from "../task/fileName.js";

/** Bytes of one file the owner adds for uploads. */
export const OWNER_FILE_MAX_BYTES = 10 * 1024 * 1024;

/** A refused file operation: a code of the closed set and words for the owner. */
export class OwnerFileError extends Error {
  constructor(
    readonly code: "invalid_file_name" | "file_too_large" | "file_unknown" | "file_unreadable",
    message: string,
  ) {
    super(message);
    this.name = "OwnerFileError";
  }
}

/** What the executor and submit need: whether a name exists, and its bytes for an upload. */
export interface OwnerFiles {
  has(name: string): Promise<boolean>;
  /** The file's bytes, opened and checked against its recorded hash; throws OwnerFileError. */
  read(name: string): Promise<Buffer>;
}

export interface OwnerFileRegistry extends OwnerFiles {
  /** Adds (or replaces) a file; answers whether it was new. Throws OwnerFileError. */
  add(name: string, data: Buffer): Promise<{ created: boolean; info: Omit<OwnerFileInfo, "createdMs"> }>;
  list(): Promise<OwnerFileInfo[]>;
  remove(name: string): Promise<boolean>;
}

function associatedData(name: string, bytes: number, sha256: string): string {
  return ["errand/owner-file/v1", name, String(bytes), sha256].join("\u0000");
}

/** An owner file's sealed bytes under the next master key's "owner-files" box (key rotation); throws SealedBoxError when they do not open under `from`. */
export function resealOwnerFile(sealed: string, file: { name: string; bytes: number; sha256: string }, from: SealedBox, to: SealedBox): string {
  return reseal(from, to, sealed, associatedData(file.name, file.bytes, file.sha256));
}

/**
 * The owner's files for upload steps, sealed at rest under the master key's "owner-files" subkey
 * and bound to their name, size and hash (bytes moved to another name do not open). The assistant
 * only ever names a file: its bytes go from here to the page's file input and nowhere else.
 */
export function createOwnerFiles(store: FileStore, box: SealedBox): OwnerFileRegistry {
  return {
    async add(name, data) {
      const problem = fileNameProblem(name);
      if (problem !== null) throw new OwnerFileError("invalid_file_name", `The file name ${JSON.stringify(name.slice(0, 120))} ${problem}.`);
      if (data.length > OWNER_FILE_MAX_BYTES)
        throw new OwnerFileError(
          "file_too_large",
          `The file is ${data.length} bytes; errand keeps files of at most ${OWNER_FILE_MAX_BYTES} bytes for uploads.`,
        );
      const sha256 = createHash("sha256").update(data).digest("hex");
      const { created } = await store.putFile({ name, bytes: data.length, sha256, sealed: box.seal(data, associatedData(name, data.length, sha256)) });
      return { created, info: { name, bytes: data.length, sha256 } };
    },
    list: () => store.listFiles(),
    remove: (name) => store.removeFile(name),
    has: async (name) => (await store.readFile(name)) !== null,
    async read(name) {
      const stored = await store.readFile(name);
      if (stored === null) throw new OwnerFileError("file_unknown", `The owner has no file named ${name} (errand file list on the errand host).`);
      let data: Buffer;
      try {
        data = box.open(stored.sealed, associatedData(stored.name, stored.bytes, stored.sha256));
      } catch {
        throw new OwnerFileError(
          "file_unreadable",
          `The file ${name} does not open under this master key with what its row records (moved, edited or another key).`,
        );
      }
      if (data.length !== stored.bytes || createHash("sha256").update(data).digest("hex") !== stored.sha256)
        throw new OwnerFileError("file_unreadable", `The file ${name} does not hash to what its row records.`);
      return data;
    },
  };
}

import { ConfigError } from "../config/runtimeConfig.js";
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { errorMessage } from "../errors/errorMessage.js";

/**
 * File modes for what errand keeps at rest. ERRAND_HOME and its keys/ directory are 0700; the
 * database, its WAL and SHM files and key files are 0600. A directory or file that already exists
 * with looser modes is tightened, not trusted; when errand cannot tighten it (another owner, a
 * read-only mount) it refuses with a message saying what to run, rather than keep secrets there.
 */
export class PrivateFileError extends ConfigError {}

const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates `dir` (and its parents) when absent, and makes sure it is a directory only its owner can enter. */
export function securePrivateDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: DIRECTORY_MODE });
  } catch (error) {
    throw new PrivateFileError(`Cannot create ${dir}: ${describe(error)}`);
  }
  let mode: number;
  try {
    const stat = statSync(dir);
    if (!stat.isDirectory()) throw new PrivateFileError(`${dir} is not a directory; errand keeps its database and keys in a directory (ERRAND_HOME).`);
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof PrivateFileError) throw error;
    throw new PrivateFileError(`Cannot inspect ${dir}: ${describe(error)}`);
  }
  if (mode === DIRECTORY_MODE) return;
  try {
    chmodSync(dir, DIRECTORY_MODE);
  } catch (error) {
    throw new PrivateFileError(
      `${dir} has mode ${mode.toString(8)} and errand cannot make it 700 (${describe(error)}); run "chmod 700 ${dir}" as its owner, or point ERRAND_HOME at a directory you own.`,
    );
  }
}

/** The mode of `path` when its group or others may read or write it (secrets there may already have been read), else null (also when absent). */
export function exposedMode(path: string): number | null {
  if (!existsSync(path)) return null;
  const mode = statSync(path).mode & 0o777;
  return (mode & 0o077) === 0 ? null : mode;
}

/** Creates `path` empty with mode 0600 when absent (exclusive create), and tightens an existing file to 0600. */
export function securePrivateFile(path: string, create = true): void {
  if (create) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE));
    } catch (error) {
      if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw new PrivateFileError(`Cannot create ${path}: ${describe(error)}`);
    }
  }
  if (!existsSync(path)) return;
  const mode = statSync(path).mode & 0o777;
  if (mode === FILE_MODE) return;
  try {
    chmodSync(path, FILE_MODE);
  } catch (error) {
    throw new PrivateFileError(
      `${path} has mode ${mode.toString(8)} and errand cannot make it 600 (${describe(error)}); run "chmod 600 ${path}" as its owner.`,
    );
  }
}

/**
 * An SQLite database and its companions: the main file is created 0600 before SQLite opens it
 * (SQLite gives the -wal and -shm files the main file's mode), and companions left by an older
 * run with looser modes are tightened.
 */
export function securePrivateDatabase(path: string): void {
  securePrivateFile(path);
  for (const suffix of ["-wal", "-shm", "-journal"]) securePrivateFile(`${path}${suffix}`, false);
}

function describe(error: unknown): string {
  return errorMessage(error);
}

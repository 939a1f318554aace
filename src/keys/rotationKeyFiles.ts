import { closeSync, constants, existsSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { join } from "node:path";
import { errorMessage } from "../errors/errorMessage.js";
import { KeyError, masterKeyPath, readHexKeyFile } from "./loadKey.js";
import { securePrivateDirectory, securePrivateFile } from "./privateFiles.js";

/**
 * The key files of a master-key rotation, beside keys/master.key (the key in force):
 * - keys/rotation.lock: "PID@HOST" of the errand process rotating now; created first, exclusively,
 *   so two rotations never run at once, and so nobody takes an unfinished rotation for a dead one;
 * - keys/next.key: the new key, written (and synced) before the database changes, so a crash
 *   after the database committed can never lose the key it is now under;
 * - keys/former/ID.key: an old key kept after its rotation (ID is its public key id), to check
 *   the rotation's handover in the journal and to open backups made before it; removed only by
 *   `errand key retire`.
 * Every file is 0600 and every directory 0700; each step that matters for a crash is synced to disk
 * (the file, then its directory) before the next begins.
 */
export function pendingKeyPath(errandHome: string): string {
  return join(errandHome, "keys", "next.key");
}

export function rotationLockPath(errandHome: string): string {
  return join(errandHome, "keys", "rotation.lock");
}

export function formerKeysDirectory(errandHome: string): string {
  return join(errandHome, "keys", "former");
}

const KEY_ID = /^[0-9a-f]{16}$/;

export function formerKeyPath(errandHome: string, keyId: string): string {
  if (!KEY_ID.test(keyId)) throw new KeyError(`"${keyId.slice(0, 40)}" is not a key id: 16 lower-case hexadecimal digits, as "errand key list" shows them.`);
  return join(formerKeysDirectory(errandHome), `${keyId}.key`);
}

/** Who holds a rotation lock, and whether that process still runs (on this host; a lock from another host counts as running). */
export interface RotationLockOwner {
  pid: number;
  host: string;
  alive: boolean;
}

/** This process takes the rotation lock; null when it was free and is now ours, else who holds it. */
export function takeRotationLock(errandHome: string): RotationLockOwner | null {
  securePrivateDirectory(join(errandHome, "keys"));
  const path = rotationLockPath(errandHome);
  try {
    writeNewFile(path, `${process.pid}@${hostname()}\n`);
    return null;
  } catch (error) {
    if (!isExists(error)) throw new KeyError(`Cannot create ${path}: ${errorMessage(error)}`);
  }
  return rotationLockOwner(errandHome) ?? { pid: 0, host: "", alive: false };
}

/** The holder of the rotation lock, or null when nobody holds it. */
export function rotationLockOwner(errandHome: string): RotationLockOwner | null {
  const path = rotationLockPath(errandHome);
  if (!existsSync(path)) return null;
  const [pid, host] = readFileSync(path, "utf8").trim().split("@");
  const owner = { pid: Number(pid), host: host ?? "" };
  if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) return { ...owner, pid: 0, alive: false };
  if (owner.host !== hostname() || owner.pid === process.pid) return { ...owner, alive: true };
  try {
    process.kill(owner.pid, 0);
    return { ...owner, alive: true };
  } catch (error) {
    return { ...owner, alive: (error as { code?: unknown }).code === "EPERM" };
  }
}

export function releaseRotationLock(errandHome: string): void {
  removePartials(rotationLockPath(errandHome));
  removeSynced(rotationLockPath(errandHome));
}

/**
 * Removes the partial files a rotation killed while writing one of its files left behind (they may
 * hold a key). Only when no rotation runs: a running one may be writing its own right now.
 */
export function sweepRotationLeftovers(errandHome: string): void {
  removePartials(pendingKeyPath(errandHome));
  removePartials(rotationLockPath(errandHome));
  const directory = formerKeysDirectory(errandHome);
  if (!existsSync(directory)) return;
  for (const name of readdirSync(directory)) if (/\.partial-\d+$/.test(name)) rmSync(join(directory, name), { force: true });
}

/** Writes a new random 32-byte key as keys/next.key (exclusive create, 0600, synced) and returns it. */
export function writePendingKey(errandHome: string): Buffer {
  const key = randomBytes(32);
  const path = pendingKeyPath(errandHome);
  removePartials(path);
  try {
    writeNewFile(path, `${key.toString("hex")}\n`);
  } catch (error) {
    throw new KeyError(`Cannot create ${path}: ${errorMessage(error)}`);
  }
  return key;
}

/** keys/next.key, or null when no rotation is under way. */
export function readPendingKey(errandHome: string): Buffer | null {
  const path = pendingKeyPath(errandHome);
  if (!existsSync(path)) return null;
  securePrivateFile(path, false);
  return readHexKeyFile(path);
}

/** Forgets the new key of a rotation that did not commit (nothing was sealed under it). */
export function discardPendingKey(errandHome: string): void {
  removePartials(pendingKeyPath(errandHome));
  removeSynced(pendingKeyPath(errandHome));
}

/**
 * Puts the new key `next` in force after the database committed to it: the key in force so far is
 * kept as keys/former/ID.key (synced), then keys/next.key replaces keys/master.key in one rename
 * (synced). Each step may be repeated after a crash, or run twice at once (the rotation and a
 * command settling it): a former key file already there with the same key is kept, and a rename
 * someone else made is found done when keys/master.key holds `next`.
 */
export function promotePendingKey(errandHome: string, former: { keyId: string; key: Uint8Array }, next: Uint8Array): void {
  const directory = formerKeysDirectory(errandHome);
  securePrivateDirectory(directory);
  const path = formerKeyPath(errandHome, former.keyId);
  removePartials(path);
  try {
    writeNewFile(path, `${Buffer.from(former.key).toString("hex")}\n`);
  } catch (error) {
    if (!isExists(error)) throw new KeyError(`Cannot keep the former key as ${path}: ${errorMessage(error)}`);
    if (!readHexKeyFile(path).equals(Buffer.from(former.key)))
      throw new KeyError(`${path} holds another key than the one it is named after; errand leaves it, and keys/next.key, for you to look at.`);
  }
  syncDirectory(directory);
  try {
    renameSync(pendingKeyPath(errandHome), masterKeyPath(errandHome));
  } catch (error) {
    const done = (error as { code?: unknown }).code === "ENOENT" && readHexKeyFile(masterKeyPath(errandHome)).equals(Buffer.from(next));
    if (!done) throw new KeyError(`Cannot put the new key in force (keys/next.key to keys/master.key): ${errorMessage(error)}`);
  }
  syncDirectory(join(errandHome, "keys"));
}

/** Every former key file: its id (from its name) and key; files under keys/former that are not ID.key are ignored. */
export function readFormerKeys(errandHome: string): { keyId: string; path: string; key: Buffer }[] {
  const directory = formerKeysDirectory(errandHome);
  if (!existsSync(directory)) return [];
  securePrivateDirectory(directory);
  return readdirSync(directory)
    .filter((name) => /^[0-9a-f]{16}\.key$/.test(name))
    .sort()
    .map((name) => {
      const path = join(directory, name);
      securePrivateFile(path, false);
      return { keyId: name.slice(0, 16), path, key: readHexKeyFile(path) };
    });
}

/**
 * Removes a former key for good: its bytes are overwritten before the file is unlinked (on a
 * copy-on-write or journaling filesystem, or an SSD, earlier copies may survive; see
 * docs/OPERATIONS.md). False when there is no such file.
 */
export function removeFormerKey(errandHome: string, keyId: string): boolean {
  const path = formerKeyPath(errandHome, keyId);
  removePartials(path);
  if (!existsSync(path)) return false;
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, Buffer.alloc(Math.max(65, readFileSync(path).length), 0), 0, undefined, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  removeSynced(path);
  return true;
}

/**
 * Creates `path` holding `text`, whole or not at all: written to a file of this process's own
 * (0600), synced, then hard-linked to `path`, which fails with EEXIST when `path` exists. A crash
 * leaves at most that partial file, never a short `path`.
 */
function writeNewFile(path: string, text: string): void {
  const partial = `${path}.partial-${process.pid}`;
  const fd = openSync(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(partial, path);
  } finally {
    rmSync(partial, { force: true });
  }
  syncDirectory(join(path, ".."));
}

/** Partial files a crash left beside `path` (writeNewFile's), removed. */
function removePartials(path: string): void {
  const directory = join(path, "..");
  const prefix = `${path.slice(directory.length + 1)}.partial-`;
  if (!existsSync(directory)) return;
  for (const name of readdirSync(directory)) if (name.startsWith(prefix)) rmSync(join(directory, name), { force: true });
}

function removeSynced(path: string): void {
  rmSync(path, { force: true });
  syncDirectory(join(path, ".."));
}

function syncDirectory(directory: string): void {
  const fd = openSync(directory, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function isExists(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "EEXIST";
}

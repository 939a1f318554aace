import type { StoreLocation } from "../app/storeLocation.js";
import { readJournalKeyIdAt } from "../app/openStores.js";
import { masterKeyPath, MissingKeyError, readHexKeyFile } from "../keys/loadKey.js";
import type { RotationLockOwner } from "../keys/rotationKeyFiles.js";
import {
  discardPendingKey,
  promotePendingKey,
  readPendingKey,
  releaseRotationLock,
  rotationLockOwner,
  sweepRotationLeftovers,
} from "../keys/rotationKeyFiles.js";
import { masterKeyId } from "./masterKeyId.js";

export type SettledRotation =
  /** The database had committed to the new key: it is now in force, the old one kept as a former key. */
  | { outcome: "completed"; keyId: string; formerKeyId: string }
  /** The database never committed: the new key was forgotten, the old one stays in force. */
  | { outcome: "rolled_back"; keyId: string }
  /** A rotation is running now (its process is alive and holds the lock); the key in force is still the old one. */
  | { outcome: "in_progress"; owner: RotationLockOwner };

/**
 * Finishes what a rotation left when it stopped part-way (a crash, a kill, a lost connection), so
 * exactly one key is in force: the database is the judge. When keys/next.key exists, the journal
 * head's key id says whether the rotation's one transaction committed: under the new key, the new
 * key is put in force (keys/rotation files' promotePendingKey); under the old key (or no journal),
 * the new key is forgotten, unless the rotation is still running (its lock's process is alive), when
 * nothing is touched. Any other key refuses, changing nothing. Null when no rotation was under way.
 * Every command runs it before it starts (runCli), so nothing ever runs with the wrong key; the
 * rotation itself runs it (`byRotation`) when its transaction failed, to know which way it went.
 */
export async function settleInterruptedRotation(
  errandHome: string,
  location: StoreLocation,
  options: { byRotation?: boolean } = {},
): Promise<SettledRotation | null> {
  // next.key before the lock: a rotation takes the lock before it writes next.key and lets go of it
  // after next.key is gone, so a next.key seen here was written under a lock read after it.
  const next = readPendingKey(errandHome);
  const owner = rotationLockOwner(errandHome);
  if (next === null) {
    if (owner === null || !owner.alive) {
      if (owner !== null) releaseRotationLock(errandHome);
      sweepRotationLeftovers(errandHome);
    }
    return null;
  }
  const running = options.byRotation !== true && owner !== null && owner.alive;
  const current = readHexKeyFile(masterKeyPath(errandHome));
  const currentId = masterKeyId(current);
  const nextId = masterKeyId(next);
  const journalKeyId = await readJournalKeyIdAt(location);
  if (journalKeyId === nextId) {
    promotePendingKey(errandHome, { keyId: currentId, key: current }, next);
    if (!running && options.byRotation !== true) {
      releaseRotationLock(errandHome);
      sweepRotationLeftovers(errandHome);
    }
    return { outcome: "completed", keyId: nextId, formerKeyId: currentId };
  }
  if (journalKeyId !== undefined && journalKeyId !== currentId) {
    throw new MissingKeyError(
      `A key rotation was interrupted, and the database's journal is under key ${journalKeyId}: neither keys/master.key (${currentId}) nor keys/next.key (${nextId}). errand changes nothing; put the key the journal is under in keys/master.key (errand key list shows the former keys kept).`,
    );
  }
  if (running) return { outcome: "in_progress", owner };
  discardPendingKey(errandHome);
  if (options.byRotation !== true) {
    releaseRotationLock(errandHome);
    sweepRotationLeftovers(errandHome);
  }
  return { outcome: "rolled_back", keyId: currentId };
}

import type { StoreLocation } from "../app/storeLocation.js";
import { openKeyRotationStoreAt, readJournalKeyIdAt } from "../app/openStores.js";
import { errorMessage } from "../errors/errorMessage.js";
import { KeyError, masterKeyPath } from "../keys/loadKey.js";
import { formerKeyPath, promotePendingKey, releaseRotationLock, takeRotationLock, writePendingKey } from "../keys/rotationKeyFiles.js";
import type { KeyRotationReport } from "../store/KeyRotationStore.js";
import { KeyRotationRefusedError } from "../store/storeErrors.js";
import { createResealers } from "./createResealers.js";
import { journalSealerOf, masterKeyId } from "./masterKeyId.js";
import { settleInterruptedRotation } from "./settleInterruptedRotation.js";

export interface RotationDone {
  keyId: string;
  formerKeyId: string;
  keyFile: string;
  formerKeyFile: string;
  /** What the store did; null when the transaction committed but its answer was lost (a dropped connection), as the journal head showed. */
  report: KeyRotationReport | null;
  /** SQLite: the file rewritten and the WAL emptied ("done"), or why not; PostgreSQL: "not_applicable" (its vacuum reclaims dead rows). */
  reclaimed: "done" | "not_applicable" | { failed: string };
}

/**
 * Rotates the master key `current` of ERRAND_HOME:
 * 1. takes keys/rotation.lock (another rotation running refuses), checks the journal is under `current`;
 * 2. writes the new key as keys/next.key, synced, before anything else changes;
 * 3. moves everything stored to the new key in one transaction (store/rotateKeyInTransaction);
 * 4. keeps `current` as keys/former/ID.key and puts keys/next.key in force as keys/master.key;
 * 5. on SQLite, rewrites the database file and empties its WAL.
 * A crash anywhere leaves exactly one key in force once settleInterruptedRotation has run (every
 * command runs it first): before the commit the old key, after it the new one. A refusal or a failed
 * transaction changes nothing and forgets the new key.
 */
export async function rotateMasterKey(errandHome: string, location: StoreLocation, current: Buffer): Promise<RotationDone> {
  const fromId = masterKeyId(current);
  const journalKeyId = await readJournalKeyIdAt(location);
  if (journalKeyId === undefined)
    throw new KeyRotationRefusedError("The database holds no journal yet: nothing is sealed under the key, so there is nothing to rotate.");
  if (journalKeyId !== fromId) {
    throw new KeyRotationRefusedError(
      `The journal is under key ${journalKeyId}, not under the key in ${masterKeyPath(errandHome)} (${fromId}): nothing was rotated. Put the right key back first.`,
    );
  }
  let holder = takeRotationLock(errandHome);
  if (holder !== null && !holder.alive) {
    // Left by a rotation that stopped before it wrote its new key (settleInterruptedRotation handles the rest).
    releaseRotationLock(errandHome);
    holder = takeRotationLock(errandHome);
  }
  if (holder !== null) {
    throw new KeyRotationRefusedError(
      `Another key rotation holds keys/rotation.lock (process ${holder.pid} on ${holder.host || "an unknown host"}): wait for it to end. If no "errand key rotate" runs, remove ${errandHome}/keys/rotation.lock and run any errand command, which settles what a stopped rotation left.`,
    );
  }
  try {
    const next = writePendingKey(errandHome);
    const from = journalSealerOf(current);
    const to = journalSealerOf(next);
    const store = openKeyRotationStoreAt(location, { sealer: from });
    try {
      let report: KeyRotationReport | null;
      try {
        report = await store.rotateKey({ from, to, reseal: createResealers(current, next) });
      } catch (error) {
        report = await committedAnyway(errandHome, location, error);
      }
      promotePendingKey(errandHome, { keyId: fromId, key: current }, next);
      let reclaimed: RotationDone["reclaimed"] = "not_applicable";
      if (store.reclaimFreedPages !== undefined) {
        try {
          await store.reclaimFreedPages();
          reclaimed = "done";
        } catch (error) {
          reclaimed = { failed: errorMessage(error) };
        }
      }
      return { keyId: to.keyId, formerKeyId: fromId, keyFile: masterKeyPath(errandHome), formerKeyFile: formerKeyPath(errandHome, fromId), report, reclaimed };
    } finally {
      await store.close();
    }
  } finally {
    releaseRotationLock(errandHome);
  }
}

/**
 * After the rotation's transaction failed: null when the database committed all the same (the head
 * is under the new key: an answer lost after COMMIT), else `error` again once the new key is
 * forgotten. When the database cannot even be asked, the new key stays in keys/next.key and the next
 * errand command settles it.
 */
async function committedAnyway(errandHome: string, location: StoreLocation, error: unknown): Promise<null> {
  let settled;
  try {
    settled = await settleInterruptedRotation(errandHome, location, { byRotation: true });
  } catch (unknown) {
    throw new KeyError(
      `The rotation failed (${errorMessage(error)}) and errand cannot tell from the database whether it committed (${errorMessage(unknown)}). keys/next.key is kept: the next errand command that reaches the database puts in force whichever key the journal is under.`,
    );
  }
  if (settled?.outcome === "completed") return null;
  throw error;
}

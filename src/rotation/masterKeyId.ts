import { createJournalSealer } from "../journal/createJournalSealer.js";
import type { JournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";

/** The journal sealer of a master key (its "journal" subkey), as every store is opened with. */
export function journalSealerOf(master: Uint8Array): JournalSealer {
  return createJournalSealer(deriveSubkey(master, "journal"));
}

/**
 * A master key's public id: the key id its journal head records (16 hex digits, a MAC of a constant
 * under the key's journal subkey). It names a key in `errand key list`, in a former key's file name
 * and in the journal's key_rotated events, and reveals nothing of the key.
 */
export function masterKeyId(master: Uint8Array): string {
  return journalSealerOf(master).keyId;
}

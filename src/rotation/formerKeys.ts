import type { JournalSealer } from "../journal/createJournalSealer.js";
import { KeyError } from "../keys/loadKey.js";
import { readFormerKeys } from "../keys/rotationKeyFiles.js";
import { journalSealerOf, masterKeyId } from "./masterKeyId.js";

export interface FormerKey {
  keyId: string;
  path: string;
  sealer: JournalSealer;
}

/** The former keys kept in ERRAND_HOME/keys/former, each checked to be the key its file is named after. */
export function loadFormerKeys(errandHome: string): FormerKey[] {
  return readFormerKeys(errandHome).map(({ keyId, path, key }) => {
    const sealer = journalSealerOf(key);
    if (sealer.keyId !== keyId)
      throw new KeyError(`${path} is named after key ${keyId} but holds key ${masterKeyId(key)}: errand does not guess which is meant; rename or remove it.`);
    return { keyId, path, sealer };
  });
}

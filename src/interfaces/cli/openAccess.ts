import { createJournalSealer } from "../../journal/createJournalSealer.js";
import { deriveSubkey } from "../../keys/loadKey.js";
import type { AccessStore } from "../../store/AccessStore.js";
import { openAccessStoreAt, storeLocationFor } from "../../app/openStores.js";
import type { SecretHasher } from "../http/secretHasher.js";
import { createSecretHasher } from "../http/secretHasher.js";
import type { CommandContext } from "./commandContext.js";
import type { OpenedOperations } from "./openOperations.js";
import { openOperations } from "./openOperations.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";
import { withOperations } from "./withOperations.js";

export interface OpenedAccess {
  access: AccessStore;
  hasher: SecretHasher;
}

/**
 * Opens the access tables next to an opened operations store (which has created and migrated the
 * database): the secrets hasher uses the master key's "http-secrets" subkey, the journal its
 * "journal" subkey, as every other errand process does.
 */
export function openAccess(opened: OpenedOperations): OpenedAccess {
  // The operations store opened first has already found (or, for a new home, made) the key.
  const location = storeLocationFor(opened.config);
  const key = masterKeyFor(opened.config.errandHome, "read", location);
  const access = openAccessStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) });
  return { access, hasher: createSecretHasher(deriveSubkey(key, "http-secrets")) };
}

/** Runs a command body with the access store open, and always closes it (see masterKeyFor for `access`). */
export function withAccess(ctx: CommandContext, body: (opened: OpenedAccess & OpenedOperations) => Promise<number>, access: HomeAccess = "write"): Promise<number> {
  return withOperations(
    ctx,
    async (operations) => {
      const access = openAccess(operations);
      try {
        return await body({ ...operations, ...access });
      } finally {
        await access.access.close();
      }
    },
    (c) => openOperations(c, { access }),
  );
}

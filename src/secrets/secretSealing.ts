import type { SealedBox } from "../keys/sealedBox.js";
import { reseal } from "../keys/sealedBox.js";
import type { SecretSourceKind } from "../store/SecretStore.js";
import { canonicalJson } from "../task/canonicalJson.js";

const AAD_PURPOSE = "errand/secret/v1";

/**
 * The associated data a declared secret's payload is sealed with: the canonical JSON of the purpose,
 * its name, sites and source kind, so a row whose sites were widened in the database, or whose
 * ciphertext was copied to another name, fails to open.
 */
export function secretAssociatedData(name: string, sites: readonly string[], sourceKind: SecretSourceKind): string {
  return canonicalJson({ purpose: AAD_PURPOSE, name, sites: [...sites], sourceKind });
}

/** A secret's sealed payload under the next master key's "secrets" box (key rotation); throws SealedBoxError when it does not open under `from`. */
export function resealSecret(
  sealed: string,
  secret: { name: string; sites: readonly string[]; sourceKind: SecretSourceKind },
  from: SealedBox,
  to: SealedBox,
): string {
  return reseal(from, to, sealed, secretAssociatedData(secret.name, secret.sites, secret.sourceKind));
}

import { resealOwnerFile } from "../files/createOwnerFiles.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { createSealedBox } from "../keys/sealedBox.js";
import { artifactsBox, resealArtifact } from "../operations/artifactKeeping.js";
import { heldResultsBox, resealHeldResult } from "../operations/heldResults.js";
import { resealSecret } from "../secrets/secretSealing.js";
import { resealSiteSession } from "../sites/siteSessionSealing.js";
import type { Resealers } from "../store/KeyRotationStore.js";

/**
 * The store's re-sealing functions for a rotation from master key `from` to `to`: each kind of
 * sealed value with the subkey and the associated data of the module that owns it (secrets, sites,
 * owner files, held results, artifacts). Adding a kind of sealed value means adding it here and to
 * the store's Resealers, or a rotation would leave it under the old key.
 */
export function createResealers(from: Uint8Array, to: Uint8Array): Resealers {
  const boxes = (purpose: string) => ({ from: createSealedBox(deriveSubkey(from, purpose)), to: createSealedBox(deriveSubkey(to, purpose)) });
  const secrets = boxes("secrets");
  const sites = boxes("sites");
  const files = boxes("owner-files");
  const held = { from: heldResultsBox(from), to: heldResultsBox(to) };
  const artifacts = { from: artifactsBox(from), to: artifactsBox(to) };
  return {
    secret: (sealed, secret) => resealSecret(sealed, secret, secrets.from, secrets.to),
    siteSession: (sealed, site) => resealSiteSession(sealed, site, sites.from, sites.to),
    ownerFile: (sealed, file) => resealOwnerFile(sealed, file, files.from, files.to),
    heldResult: (sealed, result) => resealHeldResult(sealed, result, held.from, held.to),
    artifact: (sealed, artifact) => resealArtifact(sealed, artifact, artifacts.from, artifacts.to),
  };
}

import type { SealedBox } from "../keys/sealedBox.js";
import { reseal } from "../keys/sealedBox.js";
import { canonicalJson } from "../task/canonicalJson.js";

const AAD_PURPOSE = "errand/site-session/v1";

/** The part of a site's definition its saved session is bound to. */
export interface SessionBinding {
  name: string;
  origins: readonly string[];
  definedMs: number;
}

/**
 * The associated data a site's saved session is sealed with: the canonical JSON of the purpose, the
 * site's name, origins and definition time, so a session whose row was widened to more origins,
 * moved to another site, or outlived a redefinition does not open.
 */
export function siteSessionAssociatedData(site: SessionBinding): string {
  return canonicalJson({ purpose: AAD_PURPOSE, name: site.name, origins: [...site.origins], definedMs: site.definedMs });
}

/** A saved session under the next master key's "sites" box (key rotation); throws SealedBoxError when it does not open under `from`. */
export function resealSiteSession(sealed: string, site: SessionBinding, from: SealedBox, to: SealedBox): string {
  return reseal(from, to, sealed, siteSessionAssociatedData(site));
}

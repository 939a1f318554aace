import { randomUUID } from "node:crypto";
import type { SealedBox } from "../keys/sealedBox.js";
import { MAX_SECRET_SITES, normalizeSecretSite, originMatchesSites } from "../secrets/secretSite.js";
import type { GrantRisk, SiteGrantRecord, SiteRecord, SiteStore } from "../store/SiteStore.js";
import { TASK_LIMITS } from "../task/limits.js";
import { hostMatchesPattern, normalizeHostPattern } from "../task/normalizeHostPattern.js";
import { normalizeHttpUrl } from "../task/normalizeHttpUrl.js";
import { isSecretName } from "../task/secretName.js";
import { isSiteName } from "../task/siteName.js";
import { restrictSessionToSite, sessionIsEmpty } from "./sessionScope.js";
import { siteSessionAssociatedData } from "./siteSessionSealing.js";
import type { LiveSiteGrant, SavedSession, SiteDefinition, SiteGrantSummary, SiteSessions, SiteSummary } from "./siteTypes.js";
import { SiteError } from "./siteTypes.js";

/** At most this many login hosts per site (an SSO provider and its identity hosts). */
const MAX_LOGIN_HOSTS = 8;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a standing grant lasts when the owner names no duration. */
export const DEFAULT_GRANT_MS = 30 * DAY_MS;
/** The longest standing grant: the owner gives it again after that, so a forgotten grant ends. */
export const MAX_GRANT_MS = 90 * DAY_MS;
/** At most this many secrets per grant. */
const MAX_GRANT_SECRETS = 16;

export interface SiteRegistryOptions {
  store: SiteStore;
  /** A box under the master key's "sites" subkey (deriveSubkey(master, "sites")). */
  box: SealedBox;
  /**
   * Where errand serve is reached (ERRAND_PUBLIC_URL), for the owner console's login page of a
   * site; null: the page is named by its path on errand serve's own address.
   */
  publicUrl: string | null;
  /** The clock grants are judged live by (the store's clock on SQLite); Date.now by default. */
  clock?: () => number;
}

/** What the owner gives `errand site allow` (or the console's "approve and allow"). */
export interface GrantInput {
  risk: GrantRisk;
  secrets: readonly string[];
  /** Defaults to DEFAULT_GRANT_MS; at most MAX_GRANT_MS. */
  durationMs?: number;
  via: "cli" | "console";
}

/** What the owner gives `errand site add`. */
export interface SiteInput {
  name: string;
  origins: readonly string[];
  loginUrl?: string;
  loggedInSelector?: string;
  loginHosts?: readonly string[];
}

export interface SiteRegistry extends SiteSessions {
  /** Sets a site up (or redefines it, which drops its saved session); every setting is checked first. */
  define(input: SiteInput): Promise<{ created: boolean; site: SiteSummary }>;
  list(): Promise<SiteSummary[]>;
  show(name: string): Promise<SiteSummary | null>;
  remove(name: string): Promise<boolean>;
  /** The owner's standing grant on a site (owner-only callers: the CLI and the owner console). */
  allow(name: string, input: GrantInput): Promise<SiteGrantSummary>;
  /** Ends every grant of the site; the ids it ended. */
  revoke(name: string): Promise<string[]>;
  /** The site's live grants with its origins, for the owner-approval decision (none for an unknown or tampered site). */
  liveGrants(name: string): Promise<LiveSiteGrant[]>;
}

/**
 * The owner's site registry. A saved session is sealed with AES-256-GCM; the associated data is the
 * canonical JSON of the purpose, the site's name, origins and definition time, so a session whose
 * row was widened to more origins, moved to another site, or outlived a redefinition does not open
 * (the site then has no session: its tasks end login_required), instead of going somewhere new.
 */
export function createSiteRegistry(options: SiteRegistryOptions): SiteRegistry {
  const { store, box } = options;
  const aad = siteSessionAssociatedData;

  const requireName = (name: string): void => {
    if (!isSiteName(name))
      throw new SiteError(
        "invalid_site",
        `"${name.slice(0, 70)}" is not a site name: start with a letter, then letters, digits, "_" or "-", at most 64 characters.`,
      );
  };

  const openRecord = (record: SiteRecord): SavedSession | null => {
    if (!record.authentic || record.sealedSession === null || record.sessionState !== "saved") return null;
    try {
      const session = JSON.parse(box.open(record.sealedSession, aad(definitionOf(record))).toString("utf8")) as SavedSession;
      if (!Array.isArray(session.cookies) || !Array.isArray(session.origins)) return null;
      return restrictSessionToSite(session, record.origins);
    } catch {
      // Another master key, or an edited row: the session is not believed, and no refusal quotes it.
      return null;
    }
  };

  const clock = options.clock ?? Date.now;
  const isLive = (grant: SiteGrantRecord, site: SiteRecord, now: number): boolean =>
    grant.authentic &&
    site.authentic &&
    grant.site === site.name &&
    grant.siteDefinedMs === site.definedMs &&
    grant.revokedMs === null &&
    grant.expiresMs > now;
  const summaries = async (records: SiteRecord[]): Promise<SiteSummary[]> => {
    const grants = await store.listGrants(records.length === 1 ? (records[0]?.name ?? null) : null);
    const now = clock();
    return records.map((record) => summarize(record, grants.filter((grant) => isLive(grant, record, now)).map(grantSummary)));
  };

  return {
    async define(input) {
      requireName(input.name);
      const origins = normalizeOrigins(input.origins);
      const loginHosts: string[] = [];
      for (const [index, raw] of (input.loginHosts ?? []).entries()) {
        const checked = normalizeHostPattern(raw, `/loginHosts/${index}`);
        if (!checked.ok) throw new SiteError("invalid_site", `--login-host: ${checked.problem.message}`);
        if (!loginHosts.includes(checked.pattern)) loginHosts.push(checked.pattern);
      }
      if (loginHosts.length > MAX_LOGIN_HOSTS)
        throw new SiteError("invalid_site", `A site may have at most ${MAX_LOGIN_HOSTS} login hosts; it has ${loginHosts.length}.`);
      let loginUrl: string | null = null;
      if (input.loginUrl !== undefined) {
        const checked = normalizeHttpUrl(input.loginUrl, "/loginUrl");
        if (!checked.ok) throw new SiteError("invalid_site", `--login-url: ${checked.problem.message}`);
        const host = checked.url.hostname;
        if (!originMatchesSites(checked.href, origins.value) && !loginHosts.some((pattern) => hostMatchesPattern(host, pattern))) {
          throw new SiteError(
            "invalid_site",
            `--login-url ${checked.url.origin} is neither one of the site's origins (${origins.value.join(", ")}) nor a --login-host.`,
          );
        }
        loginUrl = checked.href;
      }
      let loggedInSelector: string | null = null;
      if (input.loggedInSelector !== undefined) {
        const selector = input.loggedInSelector;
        if (selector.trim() === "" || selector.length > TASK_LIMITS.selectorChars)
          throw new SiteError(
            "invalid_site",
            `--logged-in needs a selector of 1 to ${TASK_LIMITS.selectorChars} characters (one that is on the site's pages only when logged in, e.g. "#sign-out").`,
          );
        loggedInSelector = selector;
      }
      const { created, record } = await store.putSite({ name: input.name, origins: origins.value, loginUrl, loggedInSelector, loginHosts: loginHosts.sort() });
      return { created, site: (await summaries([record]))[0] ?? summarize(record, []) };
    },

    async list() {
      return summaries(await store.listSites());
    },

    async show(name) {
      requireName(name);
      const record = await store.readSite(name);
      return record === null ? null : ((await summaries([record]))[0] ?? null);
    },

    remove(name) {
      requireName(name);
      return store.deleteSite(name);
    },

    async lookup(name) {
      if (!isSiteName(name)) return null;
      const record = await store.readSite(name);
      if (record === null) return null;
      if (!record.authentic)
        throw new SiteError(
          "journal_tampered",
          `The stored definition of the site ${name} fails its MAC under the master key: it was changed without the key (its origins, perhaps), so it grants nothing. The owner sets it up again with errand site add ${name}; errand doctor lists every such row.`,
        );
      return definitionOf(record);
    },

    async openSession(site) {
      const record = await store.readSite(site.name);
      if (record === null || record.definedMs !== site.definedMs) return null;
      return openRecord(record);
    },

    async saveSession(site, session, state) {
      const kept = session === null ? null : restrictSessionToSite(session, site.origins);
      const sealed = kept === null || sessionIsEmpty(kept) ? null : box.seal(JSON.stringify(kept), aad(site));
      await store.saveSession(site.name, site.definedMs, { sealed, state: sealed === null ? (state === "saved" ? "none" : "expired") : state });
    },

    async allow(name, input) {
      requireName(name);
      if (input.risk !== "reversible_write" && input.risk !== "consequential")
        throw new SiteError(
          "invalid_site",
          `--risk must be reversible_write or consequential (read_only tasks need no grant); got ${String(input.risk).slice(0, 40)}.`,
        );
      const secrets = [...new Set(input.secrets)].sort();
      for (const secret of secrets)
        if (!isSecretName(secret))
          throw new SiteError(
            "invalid_site",
            `--secret "${secret.slice(0, 70)}" is not a secret name: a letter, then letters, digits or "_", at most 64 characters.`,
          );
      if (secrets.length > MAX_GRANT_SECRETS)
        throw new SiteError("invalid_site", `A grant may name at most ${MAX_GRANT_SECRETS} secrets; it names ${secrets.length}.`);
      const durationMs = input.durationMs ?? DEFAULT_GRANT_MS;
      if (!Number.isSafeInteger(durationMs) || durationMs <= 0 || durationMs > MAX_GRANT_MS)
        throw new SiteError("invalid_site", `--for must be more than 0 and at most ${MAX_GRANT_MS / DAY_MS}d.`);
      const record = await store.readSite(name);
      if (record === null) throw new SiteError("site_unknown", `No site named ${name} is set up (errand site add ${name} --origin https://...).`);
      if (!record.authentic)
        throw new SiteError(
          "journal_tampered",
          `The stored definition of the site ${name} fails its MAC under the master key, so nothing can be granted on it. Set it up again with errand site add ${name}.`,
        );
      const granted = await store.grantSite({
        grantId: `grant_${randomUUID()}`,
        site: name,
        siteDefinedMs: record.definedMs,
        risk: input.risk,
        secrets,
        durationMs,
        via: input.via,
      });
      if (granted === null)
        throw new SiteError(
          "site_unknown",
          `The site ${name} was removed or redefined meanwhile; nothing was granted. Look at it again (errand site show ${name}).`,
        );
      return grantSummary(granted);
    },

    revoke(name) {
      requireName(name);
      return store.revokeGrants(name);
    },

    async liveGrants(name) {
      if (!isSiteName(name)) return [];
      const record = await store.readSite(name);
      if (record === null || !record.authentic) return [];
      const now = clock();
      return (await store.listGrants(name))
        .filter((grant) => isLive(grant, record, now))
        .map((grant) => ({
          grantId: grant.grantId,
          site: name,
          origins: [...record.origins],
          risk: grant.risk,
          secrets: [...grant.secrets],
          expiresMs: grant.expiresMs,
        }));
    },

    loginPageUrl(name) {
      const origin = (options.publicUrl ?? "").trim().replace(/\/+$/, "");
      return `${origin}/owner/sites/${encodeURIComponent(name)}/login`;
    },
  };
}

/** The site's origins in the one origin form errand has (secretSite.ts), de-duplicated and sorted. */
function normalizeOrigins(raw: readonly string[]): { value: string[] } {
  if (raw.length === 0) throw new SiteError("invalid_site", "A site needs at least one origin (--origin https://library.example.com).");
  if (raw.length > MAX_SECRET_SITES) throw new SiteError("invalid_site", `A site may have at most ${MAX_SECRET_SITES} origins; it has ${raw.length}.`);
  const origins = new Set<string>();
  for (const [index, entry] of raw.entries()) {
    const checked = normalizeSecretSite(entry, `/origins/${index}`, "an origin a site's session can be used on");
    if (!checked.ok) throw new SiteError("invalid_site", checked.errors.map((e) => e.message).join(" "));
    origins.add(checked.value);
  }
  return { value: [...origins].sort() };
}

function definitionOf(record: SiteRecord): SiteDefinition {
  return {
    name: record.name,
    origins: [...record.origins],
    loginUrl: record.loginUrl,
    loggedInSelector: record.loggedInSelector,
    loginHosts: [...record.loginHosts],
    definedMs: record.definedMs,
  };
}

function grantSummary(grant: SiteGrantRecord): SiteGrantSummary {
  return {
    id: grant.grantId,
    risk: grant.risk,
    secrets: [...grant.secrets],
    via: grant.via,
    grantedAt: new Date(grant.createdMs).toISOString(),
    expiresAt: new Date(grant.expiresMs).toISOString(),
  };
}

function summarize(record: SiteRecord, grants: SiteGrantSummary[]): SiteSummary {
  return {
    name: record.name,
    origins: [...record.origins],
    loginUrl: record.loginUrl,
    loggedInSelector: record.loggedInSelector,
    loginHosts: [...record.loginHosts],
    session: record.sessionState,
    loggedIn: record.authentic && record.sessionState === "saved" && record.sealedSession !== null,
    authentic: record.authentic,
    sessionSavedAt: record.sessionSavedMs === null ? null : new Date(record.sessionSavedMs).toISOString(),
    createdAt: new Date(record.createdMs).toISOString(),
    definedAt: new Date(record.definedMs).toISOString(),
    grants,
  };
}

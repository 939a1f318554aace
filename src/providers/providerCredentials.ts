import type { CloudProviderName } from "./providerNames.js";

/**
 * The variable holding each cloud provider's credential and what errand says when it is missing.
 * One home for both: the adapters use it, and so do `errand provider list` and `errand doctor`,
 * which must answer without loading any provider SDK.
 */
export const PROVIDER_CREDENTIALS: Readonly<Record<CloudProviderName, { envVar: string; missing: string }>> = {
  kernel: { envVar: "KERNEL_API_KEY", missing: "Kernel needs KERNEL_API_KEY; set it on the errand host to use Kernel." },
  browserless: {
    envVar: "BROWSERLESS_TOKEN",
    missing: "Browserless needs BROWSERLESS_TOKEN (and optionally BROWSERLESS_BASE_URL or BROWSERLESS_REGION); set it on the errand host to use Browserless.",
  },
  browserbase: {
    envVar: "BROWSERBASE_API_KEY",
    missing: "Browserbase needs BROWSERBASE_API_KEY (and optionally BROWSERBASE_PROJECT_ID); set it on the errand host to use Browserbase.",
  },
  steel: { envVar: "STEEL_API_KEY", missing: "Steel needs STEEL_API_KEY; set it on the errand host to use Steel." },
};

/** The provider's missing-credential sentence, or null when its credential is set (non-blank). */
export function missingCredential(name: CloudProviderName, env: NodeJS.ProcessEnv): string | null {
  const { envVar, missing } = PROVIDER_CREDENTIALS[name];
  const value = env[envVar];
  return value === undefined || value.trim() === "" ? missing : null;
}

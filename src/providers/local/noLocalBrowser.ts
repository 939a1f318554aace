import type { BrowserProvider } from "../providerTypes.js";
import { ProviderError } from "../providerTypes.js";

/** Why a host that serves errand as a fetch handler has no local browser, in the words every answer about it uses. */
export const NO_LOCAL_BROWSER =
  "This host runs cloud browsers only: errand served as a fetch handler (Deno, Val Town) starts no local Chromium. Configure a cloud provider in program mode (ERRAND_MODE_KERNEL=program or ERRAND_MODE_BROWSERLESS=program).";

/**
 * The local provider of a host that has none: never usable, so routing passes over it and a task
 * pinned to it is refused as the host's configuration, before anything starts.
 */
export function noLocalBrowser(): BrowserProvider {
  return {
    name: "local",
    kind: "local",
    missingConfiguration: () => NO_LOCAL_BROWSER,
    openSession: () => Promise.reject(new ProviderError("configuration_error", NO_LOCAL_BROWSER)),
    shutdown: () => Promise.resolve(),
  };
}

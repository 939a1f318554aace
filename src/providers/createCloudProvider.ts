import { createBrowserbaseProvider } from "./browserbaseProvider.js";
import { createBrowserlessProvider } from "./browserlessProvider.js";
import type { CloudProviderOptions } from "./cloudProviderOptions.js";
import { createKernelProvider } from "./kernelProvider.js";
import type { CloudProviderName } from "./providerNames.js";
import type { BrowserProvider } from "./providerTypes.js";
import { createSteelProvider } from "./steelProvider.js";

export { CLOUD_PROVIDER_NAMES, isCloudProviderName } from "./providerNames.js";
export type { CloudProviderName } from "./providerNames.js";

/** Builds the adapter for one cloud provider by name; credentials are read from options.env when a session opens. */
export function createCloudProvider(name: CloudProviderName, options: CloudProviderOptions): BrowserProvider {
  switch (name) {
    case "kernel":
      return createKernelProvider(options);
    case "browserless":
      return createBrowserlessProvider(options);
    case "browserbase":
      return createBrowserbaseProvider(options);
    case "steel":
      return createSteelProvider(options);
  }
}

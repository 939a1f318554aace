import { createBrowserbaseProvider } from "./browserbaseProvider.js";
import { createBrowserlessProvider } from "./browserlessProvider.js";
import type { CloudProviderOptions } from "./cloudProviderOptions.js";
import { createKernelProvider } from "./kernelProvider.js";
import type { BrowserProvider } from "./providerTypes.js";
import { createSteelProvider } from "./steelProvider.js";

/** The cloud providers errand has adapters for, in the default routing order. */
export const CLOUD_PROVIDER_NAMES = ["kernel", "browserless", "browserbase", "steel"] as const;
export type CloudProviderName = (typeof CLOUD_PROVIDER_NAMES)[number];

export function isCloudProviderName(name: string): name is CloudProviderName {
  return (CLOUD_PROVIDER_NAMES as readonly string[]).includes(name);
}

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

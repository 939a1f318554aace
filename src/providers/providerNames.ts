/** The cloud providers errand has adapters for, in the default routing order. No adapter is loaded from here. */
export const CLOUD_PROVIDER_NAMES = ["kernel", "browserless", "browserbase", "steel"] as const;
export type CloudProviderName = (typeof CLOUD_PROVIDER_NAMES)[number];

export function isCloudProviderName(name: string): name is CloudProviderName {
  return (CLOUD_PROVIDER_NAMES as readonly string[]).includes(name);
}

import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { usageAgainstCaps } from "../router/gatherFacts.js";
import type { UsageAgainstCap } from "../router/gatherFacts.js";
import { resolveRoutingConfig } from "../router/routingConfig.js";
import { withProviderStore } from "./openProviderStore.js";

/**
 * Each cloud provider's usage against its budget cap, read from the store (for `errand status`). A
 * report: it never creates a key or a database, and an unused home reads as no usage.
 */
export async function readProviderUsage(config: RuntimeConfig, env: NodeJS.ProcessEnv = process.env): Promise<UsageAgainstCap[]> {
  const routing = resolveRoutingConfig(env);
  return withProviderStore(config, "report", (store) => usageAgainstCaps(store, routing));
}

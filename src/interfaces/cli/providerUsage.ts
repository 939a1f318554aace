import type { RuntimeConfig } from "../../config/runtimeConfig.js";
import { usageAgainstCaps } from "../../router/gatherFacts.js";
import type { UsageAgainstCap } from "../../router/gatherFacts.js";
import { resolveRoutingConfig } from "../../router/routingConfig.js";
import { openProviderStore } from "./openProviderStore.js";

/** Each cloud provider's usage against its budget cap, read from ERRAND_HOME/errand.db (for `errand status`). */
export async function readProviderUsage(config: RuntimeConfig, env: NodeJS.ProcessEnv = process.env): Promise<UsageAgainstCap[]> {
  const routing = resolveRoutingConfig(env);
  const store = openProviderStore(config);
  try {
    return await usageAgainstCaps(store, routing);
  } finally {
    await store.close();
  }
}

import { ConfigError } from "../config/runtimeConfig.js";
import { CLOUD_PROVIDER_NAMES } from "../providers/providerNames.js";
import type { CloudProviderName } from "../providers/providerNames.js";
import { PROGRAM_DIALECTS } from "../providers/programDialects.js";

/**
 * How errand drives a cloud provider: "cdp" (a browser session over the DevTools protocol, with
 * errand's guards in the loop and its egress proxy for documents) or "program" (each task that
 * program mode can hold goes as one program to the provider's own runner; the rest still go over CDP).
 */
export type ProviderMode = "cdp" | "program";

/** The variable that sets each provider's mode: ERRAND_MODE_<PROVIDER>, like ERRAND_CONCURRENCY_<PROVIDER>. */
export function providerModeVariable(name: CloudProviderName): string {
  return `ERRAND_MODE_${name.toUpperCase()}`;
}

/**
 * Each cloud provider's mode from ERRAND_MODE_<PROVIDER> ("cdp" or "program"; unset or blank:
 * cdp). Program mode gives up errand-side layers (docs/SECURITY.md "Program mode"), so it is only
 * ever the operator's explicit choice, and only for a provider errand has a program runner for.
 * Throws ConfigError naming the variable and the rule.
 */
export function resolveProviderModes(env: NodeJS.ProcessEnv): Record<CloudProviderName, ProviderMode> {
  const modes = Object.fromEntries(CLOUD_PROVIDER_NAMES.map((name) => [name, "cdp"])) as Record<CloudProviderName, ProviderMode>;
  for (const name of CLOUD_PROVIDER_NAMES) {
    const variable = providerModeVariable(name);
    const raw = env[variable];
    if (raw === undefined || raw.trim() === "") continue;
    const value = raw.trim();
    if (value !== "cdp" && value !== "program") throw new ConfigError(`${variable}="${value.slice(0, 40)}" is not a mode: use cdp (the default) or program.`);
    if (value === "program" && PROGRAM_DIALECTS[name] === undefined) {
      const able = CLOUD_PROVIDER_NAMES.filter((other) => PROGRAM_DIALECTS[other] !== undefined).join(", ");
      throw new ConfigError(`${variable}=program: errand has no program runner for ${name} (program mode is for ${able}); use cdp or unset it.`);
    }
    modes[name] = value;
  }
  return modes;
}

import type { CloudProviderName } from "./providerNames.js";
import type { ProgramDialect } from "./programRun.js";

/**
 * The cloud providers errand can send a whole task to as one program, and the runner each offers.
 * One home for the fact: the adapters, the mode setting's validation and the capability answers
 * read it here.
 */
export const PROGRAM_DIALECTS: Readonly<Partial<Record<CloudProviderName, ProgramDialect>>> = {
  kernel: "kernel_execute",
  browserless: "browserless_function",
};

import * as z from "zod/v4";
import { CLOUD_PROVIDER_NAMES } from "../../../../providers/providerNames.js";
import { providerSmokeAction } from "../../providerSmokeAction.js";
import { nextSchema } from "../outputSchemas.js";
import { defineTool } from "../toolDefinition.js";

/** Activates a configured cloud provider: the operator's fixed read-only smoke task, promoted only on PASS. */
export const providerSmokeTool = defineTool({
  name: "errand_provider_smoke",
  title: "Smoke a provider",
  description: "Use this to activate a cloud provider: runs its read-only smoke task; PASS makes it OPERATIONAL.",
  input: z.object({ provider: z.enum(CLOUD_PROVIDER_NAMES).describe("Cloud provider.") }),
  output: z.object({
    provider: z.object({ name: z.string(), state: z.string(), verified: z.boolean() }).describe("New state."),
    status: z.string().describe("Receipt status."),
    operationId: z.string().describe("Smoke id."),
    error: z.string().nullable().describe("Error code."),
    message: z.string().describe("What changed."),
    next: nextSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true, idempotentHint: false },
  handler: (args, { deps, principal }) => providerSmokeAction(deps, { principal, via: "mcp" }, args.provider) as never,
  summarize: (output) => `${output.status}: ${output.message}`,
});

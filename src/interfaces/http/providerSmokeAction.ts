import { CLOUD_PROVIDER_NAMES, isCloudProviderName } from "../../providers/providerNames.js";
import type { SmokeVerdict } from "../../router/providerSmoke.js";
import { ApiError } from "./apiError.js";
import type { AppDeps } from "./httpDeps.js";
import type { Caller } from "./operationActions.js";

/** What errand_provider_smoke and POST /v1/providers/NAME/smoke answer: the smoke's outcome and the provider's state after it. */
export interface ProviderSmokeView {
  provider: { name: string; state: SmokeVerdict["state"]; verified: boolean };
  status: string;
  operationId: string;
  /** The receipt's error code (never its message, which may quote page text). */
  error: string | null;
  message: string;
  next: string;
}

/**
 * Runs the operator's smoke task (never one the caller sends) on a named cloud provider and
 * answers its new state. Nothing here reads or changes a credential, budget or cap.
 */
export async function providerSmokeAction(deps: AppDeps, caller: Caller, name: unknown): Promise<ProviderSmokeView> {
  if (typeof name !== "string" || !isCloudProviderName(name)) {
    throw new ApiError("invalid_enum", `provider must be one of ${CLOUD_PROVIDER_NAMES.join(", ")} (the local provider needs no smoke).`, {
      problems: [{ code: "invalid_enum", path: "/provider", message: `One of ${CLOUD_PROVIDER_NAMES.join(", ")}.` }],
    });
  }
  if (deps.smokeProvider === undefined)
    throw new ApiError("configuration_error", "This server cannot run provider smokes: no executor is configured for them.");
  const ran = await deps.smokeProvider(name);
  await deps.access.recordRequest({
    actor: caller.principal.actor,
    via: caller.via,
    action: "provider_smoke",
    result: ran.ok ? ran.outcome.receipt.status : "provider_unconfigured",
  });
  if (!ran.ok) throw new ApiError("provider_unconfigured", `${name} is not configured: ${ran.missing} Only the operator sets a credential, on the server.`);
  const { receipt, verdict } = ran.outcome;
  return {
    provider: { name, state: verdict.state, verified: verdict.verified },
    status: receipt.status,
    operationId: receipt.operationId,
    error: receipt.error?.code ?? null,
    message: verdict.message,
    next: verdict.verified
      ? `Tasks with "provider": "auto" may now run on ${name}.`
      : `${name} stays out of auto routing. errand_status lists providers; the operator can check the smoke with errand provider list.`,
  };
}

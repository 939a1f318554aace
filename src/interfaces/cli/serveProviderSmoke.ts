import { missingCredential } from "../../providers/providerCredentials.js";
import type { CloudProviderName } from "../../providers/providerNames.js";
import { runProviderSmoke, smokeTaskFor } from "../../router/providerSmoke.js";
import type { SmokeOutcome } from "../../router/providerSmoke.js";
import type { Task } from "../../task/taskTypes.js";
import { errorMessage } from "../../errors/errorMessage.js";
import { ApiError } from "../http/apiError.js";
import type { WiredExecutor } from "./executorFactory.js";
import { defaultSmokeTask, readSmokeTask } from "./smokeTaskFile.js";

/**
 * errand serve's provider smoke (errand_provider_smoke, POST /v1/providers/NAME/smoke): exactly
 * `errand provider smoke NAME` with docs/SMOKE_TASK.json, through the server's own routed executor.
 * Credentials are read, never set: an unconfigured provider is answered before any browser.
 */
export function serveProviderSmoke(options: {
  env: NodeJS.ProcessEnv;
  /** The task's request digest under the home's key. */
  digest: (task: Task) => string;
  executor: () => Promise<WiredExecutor>;
  /** The operator's smoke task file; docs/SMOKE_TASK.json unless given (tests point it at a loopback fixture). Never a caller's. */
  taskFile?: string;
}) {
  return async (name: CloudProviderName): Promise<{ ok: true; outcome: SmokeOutcome } | { ok: false; missing: string }> => {
    const missing = missingCredential(name, options.env);
    if (missing !== null) return { ok: false, missing };
    let checked: ReturnType<typeof smokeTaskFor>;
    try {
      checked = smokeTaskFor(readSmokeTask(options.taskFile ?? defaultSmokeTask()), name);
    } catch (error) {
      throw new ApiError("configuration_error", errorMessage(error));
    }
    if (!checked.ok)
      throw new ApiError(
        "configuration_error",
        "The smoke task of this errand is not a valid read_only task; check docs/SMOKE_TASK.json with errand validate.",
      );
    const wired = await options.executor();
    if (wired.providerStore === undefined)
      throw new ApiError("configuration_error", "This server's executor keeps no provider states, so no smoke can be recorded.");
    const outcome = await runProviderSmoke({ execute: wired.execute, store: wired.providerStore, digest: options.digest }, name, checked.task, {
      signal: new AbortController().signal,
    });
    return { ok: true, outcome };
  };
}

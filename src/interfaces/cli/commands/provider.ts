import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { storeLocationFor } from "../../../app/storeLocation.js";
import { masterKeyFor } from "../../../app/masterKey.js";
import { CLOUD_PROVIDER_NAMES, isCloudProviderName } from "../../../providers/providerNames.js";
import type { ProviderStatus } from "../../../router/describeProvider.js";
import { resolveRoutingConfig } from "../../../router/routingConfig.js";
import { requestDigest } from "../../../task/requestDigest.js";
import { runProviderSmoke, smokeTaskFor } from "../../../router/providerSmoke.js";
import { defaultSmokeTask, readSmokeTask } from "../smokeTaskFile.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { formatReceipt } from "../formatReceipt.js";
import { exitCodeFor } from "../exitCodes.js";
import { withProviderStore } from "../../../app/openProviderStore.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printErr, printOut } from "../output.js";
import { createProgressReporter } from "../progressReporter.js";
import { UsageError } from "../usageError.js";
import { printProblems, problemsError } from "./validate.js";

export const providerCommand: Command = {
  name: "provider",
  summary: "list provider states; run the smoke task that makes a cloud provider OPERATIONAL",
  options: {
    json: { type: "boolean" },
    task: { type: "string" },
    "allow-private": { type: "string", multiple: true },
  },
  maxPositionals: 2,
  run: runProvider,
  help: `errand provider list [--json]
errand provider smoke <${CLOUD_PROVIDER_NAMES.join("|")}> [--task FILE] [--allow-private HOST:PORT]... [--json]
  list   each provider's state and why: UNCONFIGURED (no credential), UNVERIFIED (configured, no
         passing smoke), OPERATIONAL, CIRCUIT_OPEN and BUDGET_EXHAUSTED (with when they end), plus
         concurrency in use and usage against the budget. --json: data.providers (docs/CLI.md).
  smoke  runs the smoke task (default docs/SMOKE_TASK.json; a read_only task with expectations)
         on that provider alone, under a fresh operationId, and prints its receipt. A PASS makes the
         provider OPERATIONAL (auto routing uses it from then on); anything else that reached the
         provider leaves it UNVERIFIED. Exit as errand run: 0 PASS, 1 FAIL, 2 invalid input,
         3 PARTIAL, 4 BLOCKED, 5 UNCERTAIN, 6 CANCELLED.`,
};

async function runProvider(ctx: CommandContext): Promise<number> {
  const action = ctx.positionals[0];
  if (action === "list") {
    if (ctx.positionals.length > 1) throw new UsageError("provider list takes no name");
    if (stringOption(ctx, "task") !== undefined || listOption(ctx, "allow-private").length > 0)
      throw new UsageError("--task and --allow-private belong to provider smoke");
    return runList(ctx);
  }
  if (action === "smoke") return runSmoke(ctx);
  throw new UsageError('say "list" or "smoke <provider>"');
}

async function runList(ctx: CommandContext): Promise<number> {
  const config = resolveRuntimeConfig(ctx.env);
  const routing = resolveRoutingConfig(ctx.env);
  // Only whether each credential is set and Chromium is there: no provider SDK and no browser
  // library is loaded, so listing stays fast (docs/BENCHMARKS.md, startup).
  const [{ listProviderStatuses }, { missingCredential }, { findChromium, CHROMIUM_INSTALL_HINT }] = await Promise.all([
    import("../../../router/gatherFacts.js"),
    import("../../../providers/providerCredentials.js"),
    import("../../../providers/local/findChromium.js"),
  ]);
  const providers = {
    ...Object.fromEntries(CLOUD_PROVIDER_NAMES.map((name) => [name, { missingConfiguration: () => missingCredential(name, ctx.env) }])),
    local: { missingConfiguration: () => (findChromium(ctx.env) === null ? CHROMIUM_INSTALL_HINT : null) },
  };
  // A report: an unused ERRAND_HOME lists every provider with no usage, and nothing is created there.
  const statuses = await withProviderStore(config, "report", (store) => listProviderStatuses(store, routing, providers, config.browserTimeoutMs));
  if (flagOption(ctx, "json")) printEnvelope({ ok: true, status: "ok", data: { providers: statuses } });
  else printOut(statuses.map(formatStatus).join("\n"));
  return EXIT.pass;
}

function formatStatus(status: ProviderStatus): string {
  const lines = [`${status.name.padEnd(12)} ${status.state}${status.until === null ? "" : ` until ${status.until}`}`, `  ${status.reason}`];
  if (status.concurrency !== null) lines.push(`  slots    ${status.concurrency.inUse} of ${status.concurrency.cap} in use`);
  if (status.budget !== null) {
    const b = status.budget;
    const dollars = b.usdLimit === undefined ? "" : ` ($${(b.usd ?? 0).toFixed(4)} of $${b.usdLimit})`;
    lines.push(
      `  budget   ${b.used}${b.reserved > 0 ? ` (+${b.reserved} held)` : ""} of ${b.limit} ${b.unit} ${b.period === "month" ? `this month, resets ${b.periodEnd ?? ""}` : "in all (one-time credit)"}${dollars}`,
    );
  }
  if (status.backoffUntil !== null) lines.push(`  429      backing off until ${status.backoffUntil}`);
  // The recorded words of the last 401/403 may quote the provider's response body, hence a page.
  if (status.authFailure !== null) lines.push(`  refused  ${status.authFailure.at} (untrusted: the provider's words) ${status.authFailure.reason.text}`);
  return lines.join("\n");
}

async function runSmoke(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const name = ctx.positionals[1];
  if (name === undefined || !isCloudProviderName(name)) throw new UsageError(`say which provider to smoke: ${CLOUD_PROVIDER_NAMES.join(", ")}`);
  const file = stringOption(ctx, "task") ?? defaultSmokeTask();
  const checked = smokeTaskFor(readSmokeTask(file), name);
  if (!checked.ok && checked.kind === "invalid") {
    if (json) printEnvelope({ ok: false, status: "invalid", error: problemsError(checked.problems) });
    else printProblems(checked.problems);
    return EXIT.usage;
  }
  if (!checked.ok) throw new UsageError(`a smoke task must be read_only (it runs unattended to test a provider); ${file} is ${checked.risk}`);

  const config = resolveRuntimeConfig(ctx.env);
  const key = masterKeyFor(config.errandHome, "write", storeLocationFor(config));
  const { buildRoutedExecutor } = await import("../../../app/buildRoutedExecutor.js");
  const routed = buildRoutedExecutor({
    env: ctx.env,
    allowPrivate: listOption(ctx, "allow-private"),
    config,
    onProviderEvent: (event) => printErr(`${event.provider}: ${event.message}`),
  });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  try {
    const { receipt, ephemeral, verdict } = await runProviderSmoke(
      { execute: routed.execute, store: routed.store, digest: (task) => requestDigest(key, task) },
      name,
      checked.task,
      { signal: controller.signal, onProgress: createProgressReporter() },
    );
    if (json)
      printEnvelope({
        ok: receipt.status === "PASS",
        status: receipt.status,
        operationId: receipt.operationId,
        receipt,
        data: { ephemeral, provider: { name, state: verdict.state, verified: verdict.verified } },
      });
    else printOut(formatReceipt(receipt, ephemeral));
    printErr(verdict.message);
    return exitCodeFor(receipt.status);
  } finally {
    process.off("SIGINT", onSignal);
    await routed.shutdown();
  }
}

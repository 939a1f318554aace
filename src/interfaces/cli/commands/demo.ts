import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { startDemoSite, DEMO_PASSWORD } from "../../../demo/demoSite.js";
import { DEMO_SECRET_NAME, demoLookalikeTask, demoReadTask, demoWriteTask } from "../../../demo/demoTasks.js";
import { storeLocationFor } from "../../../app/storeLocation.js";
import { masterKeyFor } from "../../../app/masterKey.js";
import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { BuiltExecutor } from "../../../app/buildExecutor.js";
import { requestDigest } from "../../../task/requestDigest.js";
import { validateTask } from "../../../task/validateTask.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { formatReceipt } from "../formatReceipt.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { openSecrets } from "../../../app/openSecrets.js";
import { addOutputSecret, printErr, printOut } from "../output.js";
import { createProgressReporter } from "../progressReporter.js";

export const demoCommand: Command = {
  name: "demo",
  summary: "run three tasks against a bundled local site and print their receipts",
  options: { json: { type: "boolean" } },
  maxPositionals: 0,
  run: runDemo,
  help: `errand demo [--json]
  Starts a small site on 127.0.0.1 (and a look-alike copy on another port), declares the secret
  ${DEMO_SECRET_NAME} bound to the real site's origin only (as "errand secret set
  ${DEMO_SECRET_NAME} --site http://127.0.0.1:PORT" would), then runs: a read-only task, an
  approved write that types that secret, and the same write aimed at the look-alike, which errand
  refuses (BLOCKED, secret_site_mismatch: nothing typed, nothing sent). Prints the receipts, deletes
  the demo secret and stops the sites. Needs Chromium (apt-get install -y chromium).
  Exit 0 when the read and the write PASS and the look-alike is BLOCKED, 1 otherwise.`,
};

async function runDemo(ctx: CommandContext): Promise<number> {
  addOutputSecret(DEMO_PASSWORD);
  const config = resolveRuntimeConfig(ctx.env);
  const key = masterKeyFor(config.errandHome, "write", storeLocationFor(config));
  // The store opens before the sites listen: when it cannot (a binding that does not load, a
  // database errand cannot use), nothing is left listening and the command ends with its error.
  const secrets = openSecrets(config, ctx.env);
  const site = await startDemoSite().catch(async (error: unknown) => {
    await secrets.close();
    throw error;
  });
  const json = flagOption(ctx, "json");
  const runs: { title: string; status: string; receipt: Receipt }[] = [];
  let runner: BuiltExecutor | undefined;
  try {
    // The demo sites are private (loopback) destinations: the demo, as operator, allows exactly them.
    const { buildExecutor } = await import("../../../app/buildExecutor.js");
    runner = buildExecutor(ctx.env, [site.hostPort, site.lookalike.hostPort], config.browserTimeoutMs, secrets.registry);
    printErr(`demo site listening on ${site.origin}; look-alike copy on ${site.lookalike.origin}`);
    await secrets.registry.set(DEMO_SECRET_NAME, [site.origin], { kind: "stored", value: DEMO_PASSWORD });
    printErr(`declared secret ${DEMO_SECRET_NAME}, bound to ${site.origin} only (stored encrypted; deleted when the demo ends)`);
    for (const [title, raw] of [
      ["1. read-only task", demoReadTask(site.origin)],
      ["2. approved write that types a declared secret", demoWriteTask(site.origin, DEMO_SECRET_NAME)],
      ["3. the same secret aimed at a look-alike site (refused)", demoLookalikeTask(site.lookalike.origin, DEMO_SECRET_NAME)],
    ] as const) {
      const valid = validateTask(raw);
      if (!valid.ok) throw new Error(`bundled demo task is invalid: ${valid.errors[0]?.message ?? ""}`);
      printErr(`\n== ${title} ==`);
      const { receipt, ephemeral } = await runner.execute(valid.value, {
        requestDigest: requestDigest(key, valid.value),
        attempt: 1,
        signal: new AbortController().signal,
        beforeMutationBoundary: () => Promise.resolve(),
        onProgress: createProgressReporter(),
      });
      runs.push({ title, status: receipt.status, receipt });
      if (!json) printOut(`\n${title}\n${formatReceipt(receipt, ephemeral)}`);
    }
    printErr(`\nthe look-alike site received ${site.lookalike.requests.filter((r) => !r.startsWith("GET")).length} form submission(s)`);
  } finally {
    await runner?.shutdown();
    await secrets.registry.delete(DEMO_SECRET_NAME).catch(() => false);
    await secrets.close();
    await site.close();
  }
  const [read, write, lookalike] = runs.map((r) => r.receipt);
  const ok = read?.status === "PASS" && write?.status === "PASS" && lookalike?.status === "BLOCKED" && lookalike.error?.code === "secret_site_mismatch";
  if (json) printEnvelope({ ok, status: ok ? "PASS" : "FAIL", data: { runs } });
  return ok ? EXIT.pass : EXIT.fail;
}

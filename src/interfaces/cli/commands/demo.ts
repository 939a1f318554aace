import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { startDemoSite, DEMO_PASSWORD } from "../../../demo/demoSite.js";
import { demoReadTask, demoWriteTask } from "../../../demo/demoTasks.js";
import { Redactor } from "../../../executor/redactor.js";
import { loadOrCreateMasterKey } from "../../../keys/loadKey.js";
import { requestDigest } from "../../../task/requestDigest.js";
import { validateTask } from "../../../task/validateTask.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { formatReceipt } from "../formatReceipt.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printErr, printOut, setOutputScrubber } from "../output.js";
import { createProgressReporter } from "../progressReporter.js";

const PASSWORD_VAR = "ERRAND_DEMO_PASSWORD";

export const demoCommand: Command = {
  name: "demo",
  summary: "run two tasks against a bundled local site and print their receipts",
  options: { json: { type: "boolean" } },
  maxPositionals: 0,
  run: runDemo,
  help: `errand demo [--json]
  Starts a small site on 127.0.0.1, runs a read-only task and an approved write that types a
  password from an environment variable (the demo sets ${PASSWORD_VAR} itself), prints both
  receipts and stops the site. Needs Chromium (apt-get install -y chromium).
  Exit 0 when the read task PASSes and the write task PASSes, 1 otherwise.`,
};

async function runDemo(ctx: CommandContext): Promise<number> {
  const site = await startDemoSite();
  const env = { ...ctx.env, [PASSWORD_VAR]: DEMO_PASSWORD };
  const redactor = new Redactor();
  redactor.add(DEMO_PASSWORD);
  setOutputScrubber((text) => redactor.scrub(text));
  const config = resolveRuntimeConfig(ctx.env);
  const key = loadOrCreateMasterKey(config.errandHome);
  // The demo site is a private (loopback) destination: the demo, as operator, allows exactly it.
  const { buildExecutor } = await import("../buildExecutor.js");
  const runner = buildExecutor(env, [site.hostPort], config.browserTimeoutMs);
  const json = flagOption(ctx, "json");
  const runs: { title: string; status: string; receipt: unknown }[] = [];
  try {
    printErr(`demo site listening on ${site.origin}`);
    for (const [title, raw] of [
      ["1. read-only task", demoReadTask(site.origin)],
      ["2. approved write with fill_secret", demoWriteTask(site.origin, PASSWORD_VAR)],
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
  } finally {
    await runner.shutdown();
    await site.close();
  }
  const passed = runs.every((r) => r.status === "PASS");
  if (json) printEnvelope({ ok: passed, status: passed ? "PASS" : "FAIL", data: { runs } });
  return passed ? EXIT.pass : EXIT.fail;
}

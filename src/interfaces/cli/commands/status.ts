import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printJson } from "../operationOutput.js";
import { printOut } from "../output.js";
import { withOperations } from "../withOperations.js";

export const statusCommand: Command = {
  name: "status",
  summary: "count operations by phase; show the journal and provider circuits",
  options: { json: { type: "boolean" } },
  maxPositionals: 0,
  run: runStatus,
  help: `errand status [--json]
  Operations per phase, expired leases awaiting recovery, delayed retries, journal size against its
  quota, and every provider circuit breaker. Exit 0.`,
};

async function runStatus(ctx: CommandContext): Promise<number> {
  return withOperations(ctx, async ({ service }) => {
    const report = await service.status();
    if (flagOption(ctx, "json")) {
      printJson(report);
      return EXIT.pass;
    }
    const { store, journal, breakers } = report;
    const lines = [
      `operations  ${Object.entries(store.phases).map(([phase, n]) => `${phase} ${n}`).join(", ")}`,
      `queue       ${store.expiredLeases} expired lease(s) to recover, ${store.delayed} delayed retr${store.delayed === 1 ? "y" : "ies"}${store.nextEligibleMs === null ? "" : ` (next at ${new Date(store.nextEligibleMs).toISOString()})`}`,
      `journal     ${journal.seq} events, ${journal.storedBytes} of ${journal.quotaBytes} bytes, ${store.tombstones} tombstone(s); schema ${store.schemaVersion} (${store.backend})`,
    ];
    for (const b of breakers) {
      lines.push(`provider    ${b.provider}: ${b.state}${b.state === "CLOSED" ? ` (${b.failures} consecutive failure(s))` : b.openUntilMs === null ? "" : ` until ${new Date(b.openUntilMs).toISOString()}`}`);
    }
    printOut(lines.join("\n"));
    return EXIT.pass;
  });
}

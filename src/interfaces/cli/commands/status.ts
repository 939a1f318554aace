import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printOut } from "../output.js";
import { withStoredOperations } from "../withOperations.js";

export const statusCommand: Command = {
  name: "status",
  summary: "count operations by phase; show the journal and provider circuits",
  options: { json: { type: "boolean" } },
  maxPositionals: 0,
  run: runStatus,
  help: `errand status [--json]
  Operations per phase, expired leases awaiting recovery, delayed retries, journal size against its
  quota, every provider circuit breaker, and each cloud provider's usage against its budget cap
  (--json: the envelope of docs/CLI.md; data {store, journal, breakers, usage}). Exit 0.`,
};

async function runStatus(ctx: CommandContext): Promise<number> {
  // An ERRAND_HOME never used reports zeros (no key is created, nothing is written there).
  return withStoredOperations(
    ctx,
    async (errand) => {
      const report = await errand.service.status();
      const usage = await errand.providerUsage();
      if (flagOption(ctx, "json")) {
        printEnvelope({ ok: true, status: "ok", data: { ...report, usage } });
        return EXIT.pass;
      }
      const { store, journal, breakers } = report;
      const lines = [
        `operations  ${Object.entries(store.phases)
          .map(([phase, n]) => `${phase} ${n}`)
          .join(", ")}`,
        `queue       ${store.expiredLeases} expired lease(s) to recover, ${store.delayed} delayed retr${store.delayed === 1 ? "y" : "ies"}${store.nextEligibleMs === null ? "" : ` (next at ${new Date(store.nextEligibleMs).toISOString()})`}`,
        `journal     ${journal.seq} events, ${journal.storedBytes} of ${journal.quotaBytes} bytes, ${store.tombstones} tombstone(s); schema ${store.schemaVersion} (${store.backend})`,
      ];
      for (const b of breakers) {
        lines.push(
          `provider    ${b.provider}: ${b.state}${b.state === "CLOSED" ? ` (${b.failures} consecutive failure(s))` : b.openUntilMs === null ? "" : ` until ${new Date(b.openUntilMs).toISOString()}`}`,
        );
      }
      for (const u of usage) {
        const period = u.period === "month" ? `this month (resets ${u.periodEnd ?? ""})` : "in all (one-time credit)";
        lines.push(
          `usage       ${u.provider}: ${u.used}${u.reserved > 0 ? ` (+${u.reserved} held)` : ""} of ${u.limit} ${u.unit} ${period}; ${u.sessions} session(s), ${u.sessionSeconds} s; ${u.liveSlots} of ${u.concurrency} slot(s) in use`,
        );
      }
      printOut(lines.join("\n"));
      return EXIT.pass;
    },
    "report",
  );
}

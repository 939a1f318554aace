import type { UnauthenticRow } from "../../../store/Store.js";
import type { KeyRotationRecord } from "../../../journal/verifyKeyHandovers.js";
import { loadFormerKeys } from "../../../rotation/formerKeys.js";
import { parseDuration } from "../../../config/parseDuration.js";
import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure, withoutOk } from "../operationOutput.js";
import { printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { withStoredOperations } from "../withOperations.js";

export const journalCommand: Command = {
  name: "journal",
  summary: "verify the authenticated journal, or compact old operations",
  options: { json: { type: "boolean" }, "older-than": { type: "string" } },
  maxPositionals: 1,
  run: runJournal,
  help: `errand journal verify|compact [--older-than DURATION] [--json]
  verify   checks the journal head, every operation's chain of events (each MAC, the end its row
           names, the row against its latest event), the journal's own chain and the last checkpoint
           (no operation it lists deleted or rolled back); names the first bad event or row. When
           the journal is intact, records a new checkpoint of every operation. Also checks every
           stored row that grants authority (owner password, tokens, ...) against its MAC and names
           each that fails by table and id. For each key rotation the journal records (errand key
           rotate), checks the old key's handover with the former key while keys/former keeps it
           ("not checked" once it was retired). Exit 0 intact, 1 not.
           Never creates a key: with keys/master.key missing it says so (key_error) and exits 1.
  compact  turns finished operations (completed, blocked, cancelled; not uncertain) that finished
           more than --older-than ago (e.g. 30d, 12h, 90m) into authenticated tombstones and frees
           their space. Refuses a journal that does not verify. Exit 0 done, 1 refused.
           errand serve does this by itself at start and hourly (ERRAND_COMPACT_AFTER, default 30d).
  Both read the journal in one snapshot, so they may run while errand serve and runners work.
  --json: the envelope of docs/CLI.md; status intact|tampered|compacted, the counts in data.`,
};

function forgedMessage(forged: readonly KeyRotationRecord[]): string {
  return forged
    .map(
      (r) =>
        `the key rotation recorded at ${new Date(r.atMs).toISOString()} (${r.fromKeyId} -> ${r.toKeyId}) does not carry the handover of ${r.fromKeyId}, which errand keeps: it was not made with that key`,
    )
    .join("; ");
}

function unauthenticMessage(rows: readonly UnauthenticRow[]): string {
  return `${rows.length} stored row(s) that grant authority fail their MAC (changed without the key) and grant nothing: ${rows.map((r) => `${r.table} ${r.id}`).join("; ")}`;
}

async function runJournal(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const action = ctx.positionals[0];
  if (action !== "verify" && action !== "compact") throw new UsageError('say "verify" or "compact"');
  let olderThanMs = 0;
  if (action === "compact") {
    const raw = stringOption(ctx, "older-than");
    if (raw === undefined) throw new UsageError("compact needs --older-than DURATION (for example 30d)");
    const parsed = parseDuration(raw);
    if (parsed === undefined) throw new UsageError(`--older-than "${raw}" is not a duration like 500ms, 90s, 15m, 12h, 30d or 2w`);
    olderThanMs = parsed;
  } else if (stringOption(ctx, "older-than") !== undefined) {
    throw new UsageError("--older-than belongs to compact");
  }
  return withStoredOperations(ctx, async ({ service }) => {
    if (action === "verify") {
      const verdict = await service.verifyJournal();
      const rows = await service.findUnauthenticRows();
      // Each key rotation the journal records, its handover checked with the former key while it is kept.
      const rotations = verdict.ok ? await service.keyRotations(loadFormerKeys(ctx.errandHome).map((f) => f.sealer)) : [];
      const forged = rotations.filter((r) => r.handover === "forged");
      // A clean verdict is committed to: deleting or rolling back any operation verified here is found from now on.
      const checkpointed = verdict.ok ? await service.checkpointJournal() : null;
      const ok = verdict.ok && rows.length === 0 && forged.length === 0;
      if (json) {
        const { ok: journalOk, ...data } = verdict;
        const error = !journalOk
          ? { code: "journal_tampered", message: verdict.message }
          : rows.length > 0
            ? { code: "journal_tampered", message: unauthenticMessage(rows) }
            : forged.length > 0
              ? { code: "journal_tampered", message: forgedMessage(forged) }
              : undefined;
        const keyRotations = rotations.map((r) => ({ at: new Date(r.atMs).toISOString(), fromKeyId: r.fromKeyId, toKeyId: r.toKeyId, handover: r.handover }));
        printEnvelope({
          ok,
          status: ok ? "intact" : "tampered",
          ...(error === undefined ? {} : { error }),
          data: { ...data, unauthenticRows: rows, keyRotations, ...(checkpointed === null ? {} : { checkpointWritten: checkpointed }) },
        });
      } else {
        if (verdict.ok)
          printOut(
            `${rows.length === 0 ? "intact" : "journal intact"}: ${verdict.events} events verified in ${verdict.operations} operation chain(s) and the journal's own chain (up to ${verdict.headSeq}; ${verdict.baseSeq} folded into the head); ${verdict.tombstones} tombstone(s); the previous checkpoint's ${verdict.checkpointed} operation(s) all present; new checkpoint of ${checkpointed ?? 0} operation(s) written`,
          );
        else if (verdict.fault === "operation_state") printOut(`TAMPERED: ${verdict.message} [${verdict.fault}]`);
        else
          printOut(
            `TAMPERED at ${verdict.seq === null ? "the journal's head" : `event ${verdict.seq}`}${verdict.operationId === null ? "" : ` (operation ${verdict.operationId})`}: ${verdict.message} [${verdict.fault}]`,
          );
        for (const row of rows) printOut(`TAMPERED row: ${row.table} ${row.id} fails its MAC (changed without the key); it grants nothing [row_mac]`);
        for (const r of rotations) {
          const when = new Date(r.atMs).toISOString();
          if (r.handover === "forged") printOut(`TAMPERED: ${forgedMessage([r])} [key_handover]`);
          else
            printOut(
              `key rotation at ${when}: ${r.fromKeyId} -> ${r.toKeyId}, ${r.handover === "verified" ? "handover verified with the former key" : `handover not checked: former key ${r.fromKeyId} is no longer kept`}`,
            );
        }
      }
      return ok ? EXIT.pass : EXIT.fail;
    }
    const report = await service.compactJournal({ olderThanMs });
    if (!report.ok) return printFailure(report, json);
    const counts = withoutOk(report);
    if (json) printEnvelope({ ok: true, status: "compacted", data: counts });
    else
      printOut(
        `compacted ${counts.operations} operation(s): ${counts.eventBodies} event bodies dropped, ${counts.eventsRemoved} events removed, ${counts.bytesFreed} bytes freed (${counts.storedBytes} stored), ${counts.artifactsDeleted} artifact(s) deleted`,
      );
    return EXIT.pass;
  });
}

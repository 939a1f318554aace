import { storeLocationFor } from "../../../app/storeLocation.js";
import type { StoreLocation } from "../../../app/storeLocation.js";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import type { KeyRotationRecord } from "../../../journal/verifyKeyHandovers.js";
import { masterKeyPath } from "../../../keys/loadKey.js";
import { formerKeyPath, removeFormerKey } from "../../../keys/rotationKeyFiles.js";
import { loadFormerKeys } from "../../../rotation/formerKeys.js";
import { masterKeyId } from "../../../rotation/masterKeyId.js";
import type { RotationDone } from "../../../rotation/rotateMasterKey.js";
import { KeyRotationRefusedError } from "../../../store/storeErrors.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { masterKeyFor } from "../../../app/masterKey.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { withStoredOperations } from "../withOperations.js";

export const keyCommand: Command = {
  name: "key",
  summary: "rotate the master key (everything sealed or signed moves to a new one), list the keys, retire a former key",
  options: { json: { type: "boolean" }, yes: { type: "boolean" } },
  maxPositionals: 2,
  run: runKey,
  help: `errand key rotate [--json] | list [--json] | retire ID [--yes] [--json]
  rotate   makes a new master key and moves everything kept under the old one to it in ONE database
           transaction: the declared secrets, saved site sessions, owner files, held results and
           artifacts are sealed again under it; the journal (every event, chain end, tombstone, a
           new checkpoint, the head) and every row that grants authority are MAC'd again under it,
           once the whole journal has verified under the old key; a key_rotated event records the
           change with the old key's handover. The new key goes to keys/master.key (0600); the old
           one is kept as keys/former/ID.key (0600), where journal verify checks the handover with
           it and "errand restore --key-file" opens backups made before. API tokens and OAuth
           grants end (errand keeps only keyed hashes of them): create new tokens (errand token
           create) and reconnect ChatGPT afterwards. On SQLite the database file is then rewritten
           and its WAL emptied, so no page keeps a value sealed under the old key.
           Refused, nothing changed (key_rotation_refused), while an operation is unfinished
           (awaiting approval, queued or running: run, approve, deny or cancel it first), when the
           journal or a stored row fails its MAC, or when a secret, file or session does not open.
           Stop "errand serve" and every runner first (with PostgreSQL, on every machine), and
           afterwards copy the new keys/master.key to every machine that shares the database.
           A rotation stopped part-way (a crash, a kill) is settled by the next errand command: the
           old key stays in force if the database did not commit, the new one if it did.
  list     the key in force, the former keys kept, and the rotations the journal records with
           whether each handover checks out (verified, key not kept, or FORGED).
  retire   removes former key ID for good (the file is overwritten, then unlinked) once the journal
           verifies and ID's handover holds. Without --yes it only says what would be lost: backups
           made while ID was in force can no longer be restored or verified, and the handover of
           its rotation can no longer be checked.
  --json: the envelope of docs/CLI.md; status rotated, ok or retired, the details in data.
  Exit 0 done, 1 refused (key_rotation_refused) or errand's state is wrong, 2 usage (retire
  without --yes included).`,
};

async function runKey(ctx: CommandContext): Promise<number> {
  const action = ctx.positionals[0];
  if (action !== "rotate" && action !== "list" && action !== "retire") throw new UsageError('say "rotate", "list" or "retire ID"');
  const json = flagOption(ctx, "json");
  const id = ctx.positionals[1];
  if (action === "retire" && id === undefined) throw new UsageError('retire needs the ID of a former key ("errand key list" shows them)');
  if (action !== "retire" && id !== undefined) throw new UsageError(`${action} takes no other argument`);
  if (action !== "retire" && flagOption(ctx, "yes")) throw new UsageError("--yes belongs to retire");
  const config = resolveRuntimeConfig(ctx.env);
  const location = storeLocationFor(config);
  const home = config.errandHome;
  if (action === "rotate") {
    const current = masterKeyFor(home, "read", location);
    const { rotateMasterKey } = await import("../../../rotation/rotateMasterKey.js");
    printRotation(await rotateMasterKey(home, location, current), json, location.backend);
    return EXIT.pass;
  }
  const currentId = masterKeyId(masterKeyFor(home, "read", location));
  const formers = loadFormerKeys(home);
  if (action === "list") {
    return withStoredOperations(ctx, async ({ service }) => {
      const rotations = await service.keyRotations(formers.map((f) => f.sealer));
      if (json) {
        printEnvelope({
          ok: true,
          status: "ok",
          data: {
            keyId: currentId,
            keyFile: masterKeyPath(home),
            formerKeys: formers.map((f) => ({ keyId: f.keyId, file: f.path })),
            rotations: rotations.map(rotationView),
          },
        });
      } else {
        printOut(`key in force: ${currentId} (${masterKeyPath(home)})`);
        printOut(formers.length === 0 ? "former keys kept: none" : `former keys kept:\n${formers.map((f) => `  ${f.keyId} (${f.path})`).join("\n")}`);
        printOut(
          rotations.length === 0
            ? "rotations the journal records: none"
            : `rotations the journal records:\n${rotations.map((r) => `  ${rotationLine(r)}`).join("\n")}`,
        );
      }
      return EXIT.pass;
    });
  }
  const keyId = id ?? "";
  const path = formerKeyPath(home, keyId);
  if (keyId === currentId)
    throw new KeyRotationRefusedError(`${keyId} is the key in force (keys/master.key), not a former key: rotate first ("errand key rotate").`);
  if (!formers.some((f) => f.keyId === keyId))
    throw new KeyRotationRefusedError(`No former key ${keyId} is kept (${path}); "errand key list" shows the former keys.`);
  return withStoredOperations(ctx, async ({ service }) => {
    const verdict = await service.verifyJournal();
    if (!verdict.ok)
      throw new KeyRotationRefusedError(
        `The journal does not verify (${verdict.fault}: ${verdict.message}); keep every key until it does ("errand journal verify"). Nothing was removed.`,
      );
    const rotations = (await service.keyRotations(formers.map((f) => f.sealer))).filter((r) => r.fromKeyId === keyId);
    const forged = rotations.find((r) => r.handover === "forged");
    if (forged !== undefined)
      throw new KeyRotationRefusedError(
        `The journal's rotation from ${keyId} at ${new Date(forged.atMs).toISOString()} does not carry ${keyId}'s handover: it was not made by the holder of that key. Keep the key as evidence ("errand journal verify" reports it). Nothing was removed.`,
      );
    const since = rotations[0] === undefined ? "" : ` (until ${new Date(rotations[0].atMs).toISOString()})`;
    const lost = [
      `backups made while ${keyId} was in force${since} can no longer be restored or their journal verified ("errand restore --key-file" needs this key)`,
      rotations.length === 0
        ? `(the journal no longer records the rotation from ${keyId}: it was compacted away)`
        : `"errand journal verify" can no longer check the handover of the rotation from ${keyId}; it will say "key not kept"`,
      `request digests computed under ${keyId} (operations submitted before that rotation) can no longer be recomputed ("errand digest --key-file", a client's digest key)`,
    ];
    if (!flagOption(ctx, "yes")) {
      if (!json) printErr(`Retiring ${keyId} removes ${path} for good. Afterwards:\n${lost.map((l) => `  - ${l}`).join("\n")}`);
      return printFailure(
        {
          code: "usage",
          message: `Nothing was removed: confirm with "errand key retire ${keyId} --yes" once you keep no backup from before that rotation that you may need (or keep a copy of ${path} with them).`,
        },
        json,
      );
    }
    removeFormerKey(home, keyId);
    if (json) printEnvelope({ ok: true, status: "retired", data: { keyId, file: path, lost } });
    else printOut(`retired former key ${keyId}: ${path} overwritten and removed. From now on:\n${lost.map((l) => `  - ${l}`).join("\n")}`);
    return EXIT.pass;
  });
}

function rotationView(r: KeyRotationRecord): Record<string, unknown> {
  return { at: new Date(r.atMs).toISOString(), fromKeyId: r.fromKeyId, toKeyId: r.toKeyId, handover: r.handover };
}

function rotationLine(r: KeyRotationRecord): string {
  const handover =
    r.handover === "verified"
      ? "handover verified with the former key"
      : r.handover === "key_not_kept"
        ? `handover not checkable: ${r.fromKeyId} is no longer kept`
        : "handover FORGED: not made with the former key";
  return `${new Date(r.atMs).toISOString()}  ${r.fromKeyId} -> ${r.toKeyId}  ${handover}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function printRotation(done: RotationDone, json: boolean, backend: StoreLocation["backend"]): void {
  const reclaimed = typeof done.reclaimed === "string" ? done.reclaimed : "failed";
  const next = [
    ...(backend === "postgres" ? [`copy ${done.keyFile} to every machine that shares this database (mode 0600), then start errand there again`] : []),
    "create new API tokens (errand token create) and reconnect ChatGPT: the old ones ended with the old key",
    `keep ${done.formerKeyFile} with any backup made before now; "errand key retire ${done.formerKeyId}" removes it when nothing needs it`,
  ];
  if (json) {
    printEnvelope({
      ok: true,
      status: "rotated",
      data: {
        keyId: done.keyId,
        formerKeyId: done.formerKeyId,
        keyFile: done.keyFile,
        formerKeyFile: done.formerKeyFile,
        ...(done.report === null ? { report: null } : withoutIds(done.report)),
        reclaimed,
        next,
      },
    });
    if (typeof done.reclaimed !== "string") printErr(reclaimWarning(done.reclaimed.failed));
    return;
  }
  printOut(`rotated the master key: ${done.formerKeyId} -> ${done.keyId}; ${done.keyFile} holds the new key, the old one is kept as ${done.formerKeyFile}`);
  const r = done.report;
  if (r === null)
    printOut("the database committed the rotation, but its answer was lost with the connection: the counts are in the journal's key_rotated event");
  else {
    printOut(
      `sealed again: ${plural(r.resealed.secrets, "secret")}, ${plural(r.resealed.siteSessions, "saved session")}, ${plural(r.resealed.ownerFiles, "owner file")}, ${plural(r.resealed.heldResults, "held result")}, ${plural(r.resealed.artifacts, "artifact")}` +
        (r.dropped.heldResults + r.dropped.artifacts === 0
          ? ""
          : `; dropped ${plural(r.dropped.heldResults, "held result")} and ${plural(r.dropped.artifacts, "artifact")} that could never be served (expired, their operation gone, or not opening)`),
    );
    printOut(
      `signed again: ${plural(r.resigned.events, "journal event")} (${plural(r.resigned.operations, "operation")}, ${plural(r.resigned.tombstones, "tombstone")}), ${plural(r.resigned.rows, "row")} that grant authority; recorded as key_rotated with the old key's handover`,
    );
    printOut(
      `ended: ${plural(r.ended.apiTokens, "API token")}, ${plural(r.ended.oauthGrants, "OAuth grant")}, ${plural(r.ended.oauthClients, "OAuth client")} holding a secret`,
    );
  }
  if (typeof done.reclaimed !== "string") printErr(reclaimWarning(done.reclaimed.failed));
  printOut(`next:\n${next.map((n) => `  - ${n}`).join("\n")}`);
}

function withoutIds(report: NonNullable<RotationDone["report"]>): Record<string, unknown> {
  return { at: new Date(report.atMs).toISOString(), resealed: report.resealed, dropped: report.dropped, resigned: report.resigned, ended: report.ended };
}

function reclaimWarning(reason: string): string {
  return `warning: the rotation is complete, but the database file could not be rewritten afterwards (${reason}): free pages and the WAL may still hold values sealed under the old key. Run "sqlite3 errand.db VACUUM" in ERRAND_HOME while errand is stopped.`;
}

import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure } from "../operationOutput.js";
import { printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { withStoredOperations } from "../withOperations.js";

export const artifactCommand: Command = {
  name: "artifact",
  summary: "write an operation's artifact (a screenshot or download its receipt lists) to a file, checked against the receipt's sha256",
  options: { out: { type: "string", short: "o" }, json: { type: "boolean" } },
  maxPositionals: 3,
  run: runArtifact,
  help: `errand artifact get <operationId> <N> -o FILE [--json]
  Writes artifact N (the receipt's artifacts[N].index: a screenshot taken because the task set
  evidence.screenshots, or a file a step downloaded from the task's hosts, kind "download", its
  mediaType sniffed from its bytes) of a finished operation to FILE (mode 0600, replaced when it
  exists), after checking that its bytes hash to the sha256 the operation's authenticated receipt
  records.
  Artifacts are kept for ERRAND_RESULT_TTL (default 10m) with evidenceRetention minimal and until
  "errand journal compact" with full; then artifact_not_found. Bytes that do not match the receipt
  (or do not open under this master key) are never written: artifact_mismatch.
  --json: the envelope of docs/CLI.md with data {file, index, mediaType, bytes, sha256}.
  Exit: 0 written, 1 not found, not finished or not matching, 2 for a malformed command line.`,
};

async function runArtifact(ctx: CommandContext): Promise<number> {
  const [action, id, index] = ctx.positionals;
  if (action !== "get") throw new UsageError('say "get <operationId> <N> -o FILE"');
  if (id === undefined) throw new UsageError("artifact get needs an operationId");
  if (index === undefined || !/^\d{1,6}$/.test(index)) throw new UsageError("artifact get needs N, the artifact's index in the receipt (0, 1, ...)");
  const file = stringOption(ctx, "out");
  if (file === undefined || file === "") throw new UsageError("artifact get needs -o FILE (where to write the file)");
  const json = flagOption(ctx, "json");
  return withStoredOperations(ctx, async ({ service }) => {
    const read = await service.readArtifact(id, Number(index));
    if (!read.ok) return printFailure(read, json);
    // The service checked the bytes against the receipt; checked again here on what is written.
    const sha256 = createHash("sha256").update(read.data).digest("hex");
    if (sha256 !== read.artifact.sha256)
      return printFailure(
        { code: "artifact_mismatch", message: `The bytes hash to ${sha256}, not the receipt's ${read.artifact.sha256}; nothing was written.` },
        json,
      );
    writeFileSync(file, read.data, { mode: 0o600 });
    const data = { file, index: read.artifact.index, mediaType: read.artifact.mediaType, bytes: read.data.length, sha256 };
    if (json) printEnvelope({ ok: true, status: "written", operationId: id, data });
    else printOut(`wrote ${file}: artifact ${data.index} of ${id} (${data.mediaType}, ${data.bytes} bytes, sha256 ${sha256} as the receipt records)`);
    return EXIT.pass;
  });
}

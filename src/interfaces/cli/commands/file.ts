import { readFileSync, statSync } from "node:fs";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { OWNER_FILE_MAX_BYTES, OwnerFileError } from "../../../files/createOwnerFiles.js";
import { fileNameProblem } from "../../../task/fileName.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { openFiles } from "../../../app/openFiles.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { UsageError } from "../usageError.js";

export const fileCommand: Command = {
  name: "file",
  summary: "add, list and remove the files upload steps may send, each by name",
  options: { json: { type: "boolean" } },
  maxPositionals: 3,
  run: runFile,
  help: `errand file add NAME PATH [--json]
errand file list [--json]
errand file remove NAME [--json]
  add     reads the file at PATH (at most ${OWNER_FILE_MAX_BYTES} bytes) into errand's store under NAME
          (letters, digits, ".", "-", "_", starting with a letter or digit, at most 100; no path),
          encrypted (AES-256-GCM under a subkey of ERRAND_HOME/keys/master.key), replacing a file of
          that name. An upload step names it: {"action":"upload","selector":...,"file":"NAME"}; the
          assistant sees only the name, never the content. --json: data {name, bytes, sha256, created}.
  list    names, sizes, SHA-256 and dates; never the content. --json: data.files.
  remove  deletes the file; tasks naming it are then refused at submit (file_unknown).
  Only this command manages files: neither the REST API nor MCP can read, list, add or remove them.
  Exit: 0 done, 2 for a malformed command line or a refused input (invalid_file_name, file_too_large),
  4 for a name errand has no file of (file_unknown, as submit refuses it).`,
};

async function runFile(ctx: CommandContext): Promise<number> {
  const [action, name, path] = ctx.positionals;
  const json = flagOption(ctx, "json");
  const config = resolveRuntimeConfig(ctx.env);
  if (action === "list") {
    if (name !== undefined) throw new UsageError("file list takes no name");
    const opened = openFiles(config, "read");
    try {
      const files = (await opened.registry.list()).map((f) => ({
        name: f.name,
        bytes: f.bytes,
        sha256: f.sha256,
        addedAt: new Date(f.createdMs).toISOString(),
      }));
      if (json) printEnvelope({ ok: true, status: "ok", data: { files } });
      else if (files.length === 0) printOut("no files (errand file add NAME PATH)");
      else for (const f of files) printOut(`${f.name}  ${f.bytes} bytes  sha256 ${f.sha256}  (added ${f.addedAt})`);
      return EXIT.pass;
    } finally {
      await opened.close();
    }
  }
  if (action !== "add" && action !== "remove") throw new UsageError('say "add NAME PATH", "list" or "remove NAME"');
  if (name === undefined) throw new UsageError(`file ${action} needs a NAME`);
  const problem = fileNameProblem(name);
  if (problem !== null) return printFailure({ code: "invalid_file_name", message: `NAME ${JSON.stringify(name.slice(0, 120))} ${problem}.` }, json);
  if (action === "remove") {
    if (path !== undefined) throw new UsageError("file remove takes only a NAME");
    const opened = openFiles(config);
    try {
      if (!(await opened.registry.remove(name))) return printFailure({ code: "file_unknown", message: `No file named ${name}; nothing was removed.` }, json);
      if (json) printEnvelope({ ok: true, status: "ok", data: { name, removed: true } });
      else printErr(`file ${name} removed`);
      return EXIT.pass;
    } finally {
      await opened.close();
    }
  }
  if (path === undefined) throw new UsageError("file add needs NAME and PATH");
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new UsageError(`cannot read ${path}`);
  }
  if (size > OWNER_FILE_MAX_BYTES)
    return printFailure(
      { code: "file_too_large", message: `${path} is ${size} bytes; errand keeps files of at most ${OWNER_FILE_MAX_BYTES} bytes for uploads.` },
      json,
    );
  const opened = openFiles(config);
  try {
    const { created, info } = await opened.registry.add(name, readFileSync(path));
    if (json) printEnvelope({ ok: true, status: "ok", data: { ...info, created } });
    else printErr(`file ${info.name} ${created ? "added" : "replaced"} (${info.bytes} bytes, sha256 ${info.sha256})`);
    return EXIT.pass;
  } catch (error) {
    if (error instanceof OwnerFileError) return printFailure({ code: error.code, message: error.message }, json);
    throw error;
  } finally {
    await opened.close();
  }
}

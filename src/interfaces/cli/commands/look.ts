import { writeFileSync } from "node:fs";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { lookAtPage } from "../../../executor/lookAtPage.js";
import type { LookResult } from "../../../executor/lookAtPage.js";
import type { OutlineForm, PageOutline } from "../../../receipt/outlineTypes.js";
import type { UntrustedText } from "../../../receipt/untrustedText.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { createExecutor } from "../executorFactory.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printErr, printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { printProblems, problemsError } from "./validate.js";

export const lookCommand: Command = {
  name: "look",
  summary: "open a page read-only and print its forms, fields and buttons with checked selectors",
  options: {
    "allowed-host": { type: "string", multiple: true },
    site: { type: "string" },
    json: { type: "boolean" },
    screenshot: { type: "boolean" },
    out: { type: "string" },
    "allow-private": { type: "string", multiple: true },
  },
  maxPositionals: 1,
  run: runLook,
  help: `errand look URL [--allowed-host H]... [--site NAME] [--screenshot [--out FILE]] [--json] [--allow-private HOST:PORT]...
  Opens URL exactly as a read_only task would (preflight, guards, egress filter, allowances,
  timeouts) and prints its outline: title, headings, landmarks, every form's fields (label, name,
  type, options of a select) and buttons, each with a selector errand checked to match exactly one
  element (use it as-is in a task step), and links; then its iframes, each with the "frame" a
  step names to reach it and its origin, and the forms of those on the task's hosts (the URL's
  host and every --allowed-host; any other frame is listed by origin only, nothing read from it).
  Never types, clicks or submits; field values are never read. Page text is untrusted.
  --allowed-host admits a host the page redirects to, and reads its frames.
  --screenshot: also a viewport image with every password field masked (PNG, JPEG past 1 MiB),
  written to --out FILE (default errand-look.png or .jpg here); with --json it is
  data.screenshot {mimeType, bytes, sha256, data (base64)}.
  --json: data is the outline (docs/RECEIPTS.md "Look"). Nothing is stored.
  Exit: 0 outlined, 1 the page failed, 2 invalid input, 4 refused (BLOCKED).`,
};

const show = (text: UntrustedText): string => JSON.stringify(text.text);

/** The outline as a person reads it: one line per control, its selector last. */
export function formatOutline(outline: PageOutline): string {
  const lines = [`${show(outline.title)}  ${show(outline.url)}  (quoted text comes from the page: untrusted)`];
  for (const heading of outline.headings) lines.push(`  h${heading.level} ${show(heading.text)}`);
  lines.push(...formLines(outline.forms, ""));
  for (const link of outline.links) lines.push(`  link ${show(link.text)} -> ${show(link.href)}`);
  for (const frame of outline.frames ?? []) {
    const where = frame.forms !== undefined ? "" : frame.loaded === false ? " (not loaded; its src)" : " (not one of the task's hosts: nothing read)";
    lines.push(`frame ${JSON.stringify(frame.frame)} at ${show(frame.origin)}${where}`);
    lines.push(...formLines(frame.forms ?? [], "  "));
  }
  return lines.join("\n");
}

function formLines(forms: readonly OutlineForm[], indent: string): string[] {
  const lines: string[] = [];
  for (const form of forms) {
    lines.push(`${indent}${form.selector === null ? "controls outside any form" : `form ${form.selector}`}`);
    for (const field of form.fields) {
      const options = field.options === undefined ? "" : ` options: ${field.options.map((o) => (typeof o.value === "string" ? o.value : "(text)")).join(", ")}`;
      lines.push(
        `${indent}  ${field.type.padEnd(9)} ${show(field.label).padEnd(24)} ${field.selector ?? "(no unique selector)"}${field.required ? " required" : ""}${field.visible ? "" : " hidden"}${options}`,
      );
    }
    for (const button of form.buttons)
      lines.push(
        `${indent}  ${"button".padEnd(9)} ${show(button.text).padEnd(24)} ${button.selector ?? "(no unique selector)"}${button.visible ? "" : " hidden"}`,
      );
  }
  return lines;
}

async function runLook(ctx: CommandContext): Promise<number> {
  const url = ctx.positionals[0];
  if (url === undefined) throw new UsageError("errand look needs a URL: errand look https://example.com/");
  const json = flagOption(ctx, "json");
  const hosts = listOption(ctx, "allowed-host");
  const site = stringOption(ctx, "site");
  const config = resolveRuntimeConfig(ctx.env);
  const wired = await createExecutor({ env: ctx.env, allowPrivate: listOption(ctx, "allow-private"), browserTimeoutMs: config.browserTimeoutMs });
  let result: LookResult;
  try {
    result = await lookAtPage(wired.execute, {
      url,
      ...(hosts.length === 0 ? {} : { allowedHosts: hosts }),
      ...(site === undefined ? {} : { site }),
      ...(flagOption(ctx, "screenshot") ? { screenshot: true } : {}),
    });
  } finally {
    await wired.shutdown();
  }
  if (!result.ok && result.kind === "invalid") {
    if (json) printEnvelope({ ok: false, status: "invalid", error: problemsError(result.problems) });
    else printProblems(result.problems);
    return EXIT.usage;
  }
  if (!result.ok) {
    const exit = result.status === "BLOCKED" ? EXIT.blocked : EXIT.fail;
    if (json)
      printEnvelope({ ok: false, status: result.status, error: { code: result.error.code, message: result.error.message }, data: { network: result.network } });
    else printErr(`${result.status} ${result.error.code}: ${result.error.message}`);
    return exit;
  }
  const image = {
    ...(result.screenshot === undefined ? {} : { screenshot: result.screenshot }),
    ...(result.screenshotOmitted === undefined ? {} : { screenshotOmitted: result.screenshotOmitted }),
  };
  if (json) printEnvelope({ ok: true, status: "outlined", data: { ...result.outline, provider: result.provider, network: result.network, ...image } });
  else printOut(formatOutline(result.outline));
  if (!json && result.screenshot !== undefined) {
    const file = stringOption(ctx, "out") ?? `errand-look.${result.screenshot.mimeType === "image/png" ? "png" : "jpg"}`;
    writeFileSync(file, Buffer.from(result.screenshot.data, "base64"));
    printOut(`screenshot ${file} (${result.screenshot.bytes} bytes, sha256 ${result.screenshot.sha256}; password fields masked)`);
  }
  if (result.screenshotOmitted !== undefined) printErr(`no screenshot: ${result.screenshotOmitted}`);
  return EXIT.pass;
}

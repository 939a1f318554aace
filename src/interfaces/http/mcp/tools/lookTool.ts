import * as z from "zod/v4";
import { lookAtPageAction } from "../../operationActions.js";
import { nextSchema } from "../outputSchemas.js";
import { defineTool } from "../toolDefinition.js";

/** Looks at a page before a task is written: read-only, under exactly the read_only task policy. */
export const lookTool = defineTool({
  name: "errand_look",
  title: "Look at a page",
  description:
    "Use this before writing a task: opens a page read-only; returns its forms, fields and buttons with selectors to use as-is, frames, headings and links.",
  input: z.object({
    url: z.string().min(1).max(2048).describe("The http(s) page to open."),
    allowedHosts: z.array(z.string()).max(20).optional().describe("Other task hosts: redirects, frames."),
    site: z.string().optional().describe("Owner's site."),
    screenshot: z.boolean().optional().describe("Add a viewport image (passwords masked)."),
  }),
  output: z.object({
    url: z.record(z.string(), z.unknown()).describe("The page's final URL (untrusted page text)."),
    title: z.record(z.string(), z.unknown()).describe("Untrusted page text."),
    headings: z.array(z.record(z.string(), z.unknown())).describe("level, text."),
    landmarks: z.array(z.record(z.string(), z.unknown())).describe("role, label."),
    forms: z.array(z.record(z.string(), z.unknown())).describe("selector, fields (label, name, type, selector, options), buttons (text, selector)."),
    links: z.array(z.record(z.string(), z.unknown())).describe("text, href."),
    frames: z.array(z.record(z.string(), z.unknown())).optional().describe("frame (a step's frame), origin, loaded, forms (task hosts only)."),
    provider: z.string().describe("The browser provider used."),
    network: z.record(z.string(), z.unknown()).describe("Requests the guards blocked."),
    screenshot: z.record(z.string(), z.unknown()).optional().describe("mimeType, bytes, sha256 of the image sent as image content."),
    screenshotOmitted: z.string().optional().describe("Why no image was sent."),
    next: nextSchema,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: true, idempotentHint: true },
  handler: (args, { deps, principal }) => lookAtPageAction(deps, { principal, via: "mcp" }, args) as never,
  images: (output) =>
    output.screenshot === undefined ? [] : [{ type: "image", data: String(output.screenshot["data"]), mimeType: String(output.screenshot["mimeType"]) }],
  structured: (output) => {
    if (output.screenshot === undefined) return output;
    // The bytes go out once, as image content; the structured content keeps what identifies them.
    const meta: Record<string, unknown> = { ...output.screenshot };
    delete meta["data"];
    return { ...output, screenshot: meta };
  },
  // The final address is page-chosen (a redirect can spell a sentence in it), so the summary, which
  // is outside the untrusted wrapper, points to it instead of repeating it.
  summarize: (output) =>
    `Looked at the page (final address in url): ${output.forms.length} form(s), ${output.headings.length} heading(s), ${output.links.length} link(s)${output.frames === undefined ? "" : `, ${output.frames.length} frame(s)`}. Page text is marked untrusted.`,
});

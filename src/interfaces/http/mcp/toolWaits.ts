import * as z from "zod/v4";

/**
 * How long each MCP tool may wait before it answers (s): the one home of these bounds, read by the
 * tools' input schemas and by errand_capabilities. A ChatGPT tool call is dropped near 60 s, so every
 * wait ends well before that, leaving room for the answer, its screenshots and the network. A longer
 * wait is refused (never clamped) with an error that names the bound; calling again keeps waiting.
 */
export const MCP_WAIT_SECONDS = {
  errand_run: { default: 25, max: 45 },
  errand_collect: { default: 0, max: 40 },
  errand_run_queue: { default: 30, max: 40 },
} as const;

export type WaitingTool = keyof typeof MCP_WAIT_SECONDS;

/** The error a wait past the tool's bound gets: the bound, why, and what to do instead. */
export function waitTooLongMessage(tool: WaitingTool): string {
  return `At most ${MCP_WAIT_SECONDS[tool].max} s: a ChatGPT tool call ends near 60 s. Call ${tool === "errand_run_queue" ? tool : "errand_collect"} again to keep waiting.`;
}

/** A tool's waitSeconds argument, bounded by MCP_WAIT_SECONDS. */
export function waitSecondsArgument(tool: WaitingTool) {
  const { default: fallback, max } = MCP_WAIT_SECONDS[tool];
  return z.number().int().min(0).max(max, { error: waitTooLongMessage(tool) }).default(fallback).describe(`Seconds to wait (max ${max}).`);
}

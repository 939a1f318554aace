import * as z from "zod/v4";
import { WAIT_SECONDS } from "../waitBounds.js";

/** How long each MCP tool may wait before it answers (s): its row of WAIT_SECONDS. */
export const MCP_WAIT_SECONDS = WAIT_SECONDS.mcp;

export type WaitingTool = keyof typeof MCP_WAIT_SECONDS;

/** The error a wait past the tool's bound gets: the bound, why, and what to do instead. */
export function waitTooLongMessage(tool: WaitingTool): string {
  return `At most ${MCP_WAIT_SECONDS[tool].max} s: a ChatGPT tool call ends near 60 s. Call ${tool === "errand_run_queue" ? tool : "errand_collect"} again to keep waiting.`;
}

/** A tool's waitSeconds argument, bounded by MCP_WAIT_SECONDS. */
export function waitSecondsArgument(tool: WaitingTool) {
  const { default: fallback, max } = MCP_WAIT_SECONDS[tool];
  return z
    .number()
    .int()
    .min(0)
    .max(max, { error: waitTooLongMessage(tool) })
    .default(fallback)
    .describe(`Seconds to wait (max ${max}).`);
}

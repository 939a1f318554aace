/**
 * How long each call may wait before it answers (s): the one home of these bounds, read by the MCP
 * tools' input schemas, the REST routes, the OpenAPI document and the capabilities answer. A longer
 * wait is refused (never clamped) with an error that names the bound; calling again keeps waiting.
 *
 * MCP: a ChatGPT tool call is dropped near 60 s, so every wait ends well before that, leaving room
 * for the answer, its screenshots and the network.
 * REST: its callers are scripts and clients that hold their own connection with no such cut, and a
 * longer wait saves them polls, so REST allows 120 s. A caller that is cut short (a GPT Action) passes
 * a smaller waitSeconds; the OpenAPI document says so.
 */
export const WAIT_SECONDS = {
  mcp: {
    errand_run: { default: 25, max: 45 },
    errand_collect: { default: 0, max: 40 },
    errand_run_queue: { default: 30, max: 40 },
  },
  rest: {
    collectOperation: { default: 0, max: 120 },
    runQueue: { default: 30, max: 120 },
  },
} as const;

export type RestWaitingRoute = keyof typeof WAIT_SECONDS.rest;

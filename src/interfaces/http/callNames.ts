/**
 * How a next-step text names the call to make: the MCP tool to a model, the REST route to a script.
 * One table, so the same sentence never tells a REST caller to call a tool it cannot see.
 */
export type Interface = "mcp" | "rest";

const NAMES = {
  collect: { mcp: "errand_collect", rest: "POST /v1/operations/{id}/collect" },
  runQueue: { mcp: "errand_run_queue", rest: "POST /v1/runner" },
  status: { mcp: "errand_status", rest: "GET /v1/status" },
  capabilities: { mcp: "errand_capabilities", rest: "GET /v1/capabilities" },
} as const;

export type CallName = keyof typeof NAMES;

/** The call named for `via`; a route's `{id}` is filled with the operation when one is given. */
export function callName(via: Interface, call: CallName, operationId?: string): string {
  const name: string = NAMES[call][via];
  return operationId === undefined ? name : name.replace("{id}", operationId);
}

// What the assistant reads before its first call: tools/list as errand writes it (the same
// toolListing the MCP endpoint serves, so the bytes equal test/interfaces/http/mcpSurface.test.ts's
// wire measure), each tool's share, and the typed task schema inside errand_run's input (the JSON of
// inputSchema.properties.task). Bytes of UTF-8 JSON, no whitespace, in a JSON-RPC answer envelope.
// Usage: npx tsx bench/toolList/toolList.ts
import { TOOLS } from "../../src/interfaces/http/mcp/toolList.js";
import { toolListing } from "../../src/interfaces/http/mcp/toolListing.js";

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));
const listing = toolListing(TOOLS);
const run = listing.find((tool) => tool.name === "errand_run");
const task = run?.inputSchema.properties?.["task"];

console.log(`tools/list ${bytes({ result: { tools: listing }, jsonrpc: "2.0", id: 1 })} bytes; the typed task schema ${bytes(task)} bytes`);
for (const tool of listing) {
  console.log(
    `  ${tool.name.padEnd(22)} ${String(bytes(tool)).padStart(5)}  description ${bytes(tool.description)}, input ${bytes(tool.inputSchema)}, output ${bytes(tool.outputSchema)}`,
  );
}

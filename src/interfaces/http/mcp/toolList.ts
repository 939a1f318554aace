import { createCapabilitiesTool, taskSchemaTool } from "./tools/guideTools.js";
import { lookTool } from "./tools/lookTool.js";
import { providerSmokeTool } from "./tools/providerSmokeTool.js";
import { cancelTool, inspectTool, runQueueTool, statusTool } from "./tools/queueTools.js";
import { collectTool, runTaskTool } from "./tools/taskTools.js";
import type { AnyTool } from "./toolDefinition.js";

/**
 * Every MCP tool errand serves, in the order tools/list shows them. There is no errand_submit:
 * errand_run with waitSeconds 0 queues a task and returns its handle at once, and a second tool
 * carrying the typed task schema cost 2.3 kB of every tools/list (REST and the CLI still submit).
 */
export const TOOLS: readonly AnyTool[] = [
  lookTool,
  runTaskTool,
  runQueueTool,
  collectTool,
  inspectTool,
  cancelTool,
  statusTool,
  providerSmokeTool,
  taskSchemaTool,
  createCapabilitiesTool(() => TOOLS),
];

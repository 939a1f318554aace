import { createCapabilitiesTool, taskSchemaTool } from "./tools/guideTools.js";
import { cancelTool, inspectTool, runQueueTool, statusTool } from "./tools/queueTools.js";
import { collectTool, runTaskTool, submitTaskTool } from "./tools/taskTools.js";
import type { AnyTool } from "./toolDefinition.js";

/** Every MCP tool errand serves, in the order tools/list shows them. */
export const TOOLS: readonly AnyTool[] = [
  runTaskTool,
  submitTaskTool,
  runQueueTool,
  collectTool,
  inspectTool,
  cancelTool,
  statusTool,
  taskSchemaTool,
  createCapabilitiesTool(() => TOOLS),
];

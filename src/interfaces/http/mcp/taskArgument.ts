import * as z from "zod/v4";

/**
 * The `task` argument as the tool dispatcher sees it: any JSON value, passed untouched to the task
 * validator REST and the CLI use (zod would rebuild the object and silently drop a `__proto__`
 * key that validateTask refuses). tools/list shows the typed schema from taskInputSchema instead.
 */
export const taskArgument = z.unknown().describe("The task.");

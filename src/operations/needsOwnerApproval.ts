import type { OwnerApprovalRule } from "../config/parseOwnerApproval.js";
import type { Task } from "../task/taskTypes.js";

/**
 * Whether the owner must approve this task before anything runs, under ERRAND_OWNER_APPROVAL.
 * Rules name a risk literally (`reversible_write` does not include `consequential`), `secret` any
 * fill_secret step, `all` every task. The task's `risk` is the assistant's label, so it can only
 * make a task stricter: a task labelled read_only sends no write on the wire whatever it asks.
 */
export function needsOwnerApproval(task: Task, rules: readonly OwnerApprovalRule[]): boolean {
  for (const rule of rules) {
    if (rule === "all") return true;
    if (rule === "secret" && task.steps.some((step) => step.action === "fill_secret")) return true;
    if (rule === task.risk) return true;
  }
  return false;
}

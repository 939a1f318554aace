import type { Risk, Step } from "./taskTypes.js";

/** The approvals a task can lack, each with the field that gives it. */
export type MissingApproval = "approval_required" | "secret_approval_required";

/** What the rule reads; the validator hands it fields it may not have read (undefined), the admission step a whole task. */
export interface ApprovalFacts {
  risk: Risk | undefined;
  approved: boolean;
  secretApproval: boolean;
  steps: readonly Step[] | undefined;
}

/**
 * The consent rule, in one place: a write (reversible_write, consequential) runs only with
 * `approved: true`, and a task that types a declared secret (fill_secret) only with
 * `secretApproval: true`. Returns what is missing, the write's approval first. The contract
 * (validateTask) reports each at submit, so nothing is queued; the admission step
 * (executor/admitTask) refuses with the first, a BLOCKED receipt, for a task that reaches a run
 * without it (`errand run` of an unapproved file).
 */
export function missingApprovals(facts: ApprovalFacts): MissingApproval[] {
  const missing: MissingApproval[] = [];
  if (facts.risk !== undefined && facts.risk !== "read_only" && !facts.approved) missing.push("approval_required");
  if (facts.steps?.some((step) => step.action === "fill_secret") === true && !facts.secretApproval) missing.push("secret_approval_required");
  return missing;
}

import { ConfigError } from "./configError.js";

/**
 * Which tasks need the owner's own approval (on the host or in the owner console) on top of the
 * assistant's `approved` / `secretApproval` flags. `secret` means any task with a fill_secret step;
 * `all` means every task, read_only included. An empty list is the policy "none".
 *
 * The operator sets this; the assistant never does. The assistant's `risk` label can only make a
 * task stricter: `read_only` is enforced on the wire, so under the default a task runs without the
 * owner only when it is read_only and types no secret.
 */
export const OWNER_APPROVAL_RULES = ["consequential", "reversible_write", "secret", "all"] as const;
export type OwnerApprovalRule = (typeof OWNER_APPROVAL_RULES)[number];

/** Every write and every task that types a secret: the only tasks the assistant may run alone are read_only ones that type none. */
export const DEFAULT_OWNER_APPROVAL: readonly OwnerApprovalRule[] = Object.freeze(["reversible_write", "consequential", "secret"] as OwnerApprovalRule[]);

/**
 * What a policy lets run without the owner that the default would hold for them: the write risks
 * and `secret` it does not name ("all" names everything). `errand doctor` warns when this is not empty.
 */
export function unattendedUnderPolicy(rules: readonly OwnerApprovalRule[]): OwnerApprovalRule[] {
  if (rules.includes("all")) return [];
  return DEFAULT_OWNER_APPROVAL.filter((rule) => !rules.includes(rule));
}

/**
 * Parses ERRAND_OWNER_APPROVAL: a comma list of rules, or "none". Unknown words, an empty entry, or
 * "none" next to a rule are refused: a typo must never silently turn approval off.
 */
export function parseOwnerApproval(raw: string): readonly OwnerApprovalRule[] {
  const words = raw.split(",").map((word) => word.trim().toLowerCase());
  if (words.length === 1 && words[0] === "none") return [];
  const rules: OwnerApprovalRule[] = [];
  for (const word of words) {
    if (!(OWNER_APPROVAL_RULES as readonly string[]).includes(word)) {
      throw new ConfigError(
        `ERRAND_OWNER_APPROVAL="${raw.slice(0, 80)}" is not usable: give "none" alone, or a comma list of ${OWNER_APPROVAL_RULES.join(", ")} ("${word.slice(0, 40)}" is none of them).`,
      );
    }
    if (!rules.includes(word as OwnerApprovalRule)) rules.push(word as OwnerApprovalRule);
  }
  return rules;
}

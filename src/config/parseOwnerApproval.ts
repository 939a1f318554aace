import { ConfigError } from "./configError.js";

/**
 * Which tasks need the owner's own approval (on the host or in the owner console) on top of the
 * assistant's `approved` / `secretApproval` flags. `secret` means any task with a fill_secret step;
 * `all` means every task, read_only included. An empty list is the policy "none".
 */
export const OWNER_APPROVAL_RULES = ["consequential", "reversible_write", "secret", "all"] as const;
export type OwnerApprovalRule = (typeof OWNER_APPROVAL_RULES)[number];

export const DEFAULT_OWNER_APPROVAL: readonly OwnerApprovalRule[] = Object.freeze(["consequential", "secret"] as OwnerApprovalRule[]);

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

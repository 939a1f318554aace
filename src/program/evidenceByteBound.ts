import type { ProgramParams } from "./programTypes.js";

/** The most bytes one character of a string can take in JSON: a \u escape. */
const BYTES_PER_CHAR = 6;
/** Room for one field's name, punctuation and the indentation a runner may pretty-print with. */
const BYTES_PER_FIELD = 256;
/** The fixed fields of the evidence and the runner's wrapper around it. */
const BASE_BYTES = 64 * 1024;

/**
 * The most bytes the evidence of this task's program can take as JSON, from the bounds the program
 * cuts every string to before it leaves the browser (ProgramLimits): what errand reads of the
 * provider's answer at most. A larger answer is not this program's evidence, and errand stops
 * reading it instead of holding it.
 */
export function evidenceByteBound(params: ProgramParams): number {
  const { limits } = params;
  let chars = limits.urlChars + limits.messageChars + limits.blockedEntries * (limits.urlChars + 16 + 32);
  let fields = limits.blockedEntries * 4 + params.steps.length * 3;
  for (const step of params.steps) {
    if (step.action === "extract_attribute" || (step.action === "extract_text" && step.all !== true)) {
      chars += limits.valueChars + step.name.length;
      fields += 1;
    } else if (step.action === "extract_text") {
      const max = step.max ?? limits.listDefault;
      chars += max * (limits.listItemChars + step.name.length + limits.listNameDigits + 1) + step.name.length + 16;
      fields += max + 1;
    } else if (step.action === "expect_text" || step.action === "expect_url" || step.action === "expect_count") {
      const expected = step.action === "expect_text" ? step.text : step.action === "expect_url" ? step.url : String(step.count);
      chars += expected.length + limits.observedChars + ("selector" in step && typeof step.selector === "string" ? step.selector.length : 0) + 16;
      fields += 7;
    }
  }
  return BASE_BYTES + chars * BYTES_PER_CHAR + fields * BYTES_PER_FIELD;
}

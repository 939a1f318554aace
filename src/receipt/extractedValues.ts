import type { EphemeralEvidence, Receipt } from "./receiptTypes.js";

/**
 * The extracted values a surface shows, by output name, as plain text: a full-retention receipt's
 * kept values (the text inside each one's untrusted wrapper), otherwise the live-only ones of this
 * call. `kept` says which. Every caller marks the values as untrusted page text in its own way
 * (the CLI's "untrusted" label, MCP/REST's pageContent), so none of them wraps twice.
 */
export function extractedValues(receipt: Receipt | undefined, ephemeral: EphemeralEvidence | undefined): { values: Record<string, string>; kept: boolean } {
  if (receipt?.outputs === undefined) return { values: ephemeral?.outputs ?? {}, kept: false };
  return { values: Object.fromEntries(Object.entries(receipt.outputs).map(([name, value]) => [name, value.text])), kept: true };
}

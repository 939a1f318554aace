/**
 * How prose names a step: counted from 1, with its JSON Pointer, so "step 2 (/steps/1)" reads the
 * same in progress lines, receipts printed for people and error messages. JSON fields (`step`,
 * `index`) stay positions in `steps`, from 0, exactly as the pointer says.
 */
export function stepLabel(index: number): string {
  return `step ${index + 1} (/steps/${index})`;
}

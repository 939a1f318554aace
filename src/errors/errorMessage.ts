/**
 * The words of anything thrown: an Error's message, otherwise its string form. A thrown value may be
 * anything (a string, a driver's plain object), and every boundary that reports one says it the same way.
 */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

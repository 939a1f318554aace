/**
 * `$n` placeholders of `sql` moved up by `offset`, so a statement written with its own $1.. can be
 * embedded in a larger one after `offset` other parameters (a CTE per transition, a second arm of
 * a UNION). The texts shifted are errand's own SQL, which holds no `$` other than placeholders.
 */
export function shiftPlaceholders(sql: string, offset: number): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

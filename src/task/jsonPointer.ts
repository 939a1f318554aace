/** Appends one reference token to a JSON Pointer (RFC 6901), escaping "~" and "/". */
export function pointer(base: string, token: string | number): string {
  const escaped = String(token).replace(/~/g, "~0").replace(/\//g, "~1");
  return `${base}/${escaped}`;
}

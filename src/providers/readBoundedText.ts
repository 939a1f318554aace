/** The body outgrew its cap: errand stopped reading it. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer passed ${maxBytes} bytes`);
    this.name = "BodyTooLarge";
  }
}

/**
 * Reads a fetch response's body as UTF-8, at most `maxBytes` of it: past the cap the stream is
 * cancelled and BodyTooLarge thrown, so a provider (or whatever answers in its place) cannot make
 * errand hold an answer of any size in memory.
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(maxBytes);
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

import type { ArtifactMediaType } from "../receipt/artifactTypes.js";

/** Bytes of a file's start looked at to call it plain text. */
const TEXT_SNIFF_BYTES = 1024;

/**
 * The media type of a downloaded file, from its first bytes alone (what the site called it is not
 * believed): PDF, PNG, JPEG and ZIP by their magic numbers, plain text when the start is valid UTF-8
 * without control characters other than tab, newline, carriage return and form feed; anything
 * else is application/octet-stream.
 */
export function sniffMediaType(data: Buffer): ArtifactMediaType {
  const starts = (magic: readonly number[]) => magic.every((byte, i) => data[i] === byte);
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return "application/pdf";
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x50, 0x4b, 0x03, 0x04]) || starts([0x50, 0x4b, 0x05, 0x06])) return "application/zip";
  return data.length > 0 && looksLikeText(data.subarray(0, TEXT_SNIFF_BYTES)) ? "text/plain" : "application/octet-stream";
}

function looksLikeText(head: Buffer): boolean {
  for (const byte of head) if (byte === 0x7f || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c)) return false;
  try {
    // A multi-byte character cut at the sniff window's end is still text.
    new TextDecoder("utf-8", { fatal: true }).decode(head.length === TEXT_SNIFF_BYTES ? trimPartial(head) : head);
    return true;
  } catch {
    return false;
  }
}

/** The window without a trailing, incomplete UTF-8 sequence. */
function trimPartial(head: Buffer): Buffer {
  let end = head.length;
  let back = 0;
  while (end > 0 && back < 3 && ((head[end - 1] ?? 0) & 0xc0) === 0x80) {
    end -= 1;
    back += 1;
  }
  if (end > 0 && ((head[end - 1] ?? 0) & 0xc0) === 0xc0) end -= 1;
  else end = head.length;
  return head.subarray(0, end);
}

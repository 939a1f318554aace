import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sniffMediaType } from "../../src/executor/sniffMediaType.js";

describe("sniffMediaType: a download's media type comes from its bytes", () => {
  const cases: [string, Buffer, string][] = [
    ["a PDF", Buffer.from("%PDF-1.7\n..."), "application/pdf"],
    ["a PNG", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), "image/png"],
    ["a JPEG", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), "image/jpeg"],
    ["a ZIP", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0]), "application/zip"],
    ["an empty ZIP", Buffer.from([0x50, 0x4b, 0x05, 0x06, 0, 0]), "application/zip"],
    ["UTF-8 text", Buffer.from("Rechnung Nr. 42 — 12,50 €\r\n\ttotal\n"), "text/plain"],
    ["text whose sniff window ends inside a character", Buffer.from(`${"a".repeat(1023)}€ and more`), "text/plain"],
    ["bytes with a NUL", Buffer.from("abc\u0000def"), "application/octet-stream"],
    ["invalid UTF-8", Buffer.from([0x61, 0xc3, 0x28]), "application/octet-stream"],
    ["a PDF signature not at the start", Buffer.from(" %PDF-1.4"), "text/plain"],
    ["an executable", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]), "application/octet-stream"],
    ["nothing", Buffer.alloc(0), "application/octet-stream"],
    ["half a PNG signature", Buffer.from([0x89, 0x50, 0x4e]), "application/octet-stream"],
  ];
  for (const [name, bytes, expected] of cases) {
    test(`${name} is ${expected}`, () => assert.equal(sniffMediaType(bytes), expected));
  }
});

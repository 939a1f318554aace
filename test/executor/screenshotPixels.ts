import type { DecodedPng } from "../fixtures/decodePng.js";

/**
 * What the screenshot tests look for in a decoded PNG: the mask colour (SCREENSHOT_LIMITS.maskColor)
 * and the green of the test pages' fields, each sampled over a known region.
 */
export const MASK: [number, number, number] = [255, 0, 255];
export const GREEN: [number, number, number] = [0, 255, 0];

/** A password field (top, 60 px, holding a known value) and a green text field below it (100-400 px), each a known region. */
export const FORM = `<style>body{margin:0;background:#fff} input{position:absolute;left:0;width:100%;border:0;padding:0;margin:0;background:#00ff00;color:#000;font-size:40px}</style>
  <input id="pw" type="password" value="pw-value-9917" style="top:0;height:60px">
  <input id="plain" type="text" value="visible text" style="top:100px;height:300px">
  <p id="done" style="position:absolute;top:450px">Ready</p>`;

const near = (p: [number, number, number], q: [number, number, number]) => p.every((v, i) => Math.abs(v - (q[i] ?? 0)) <= 8);

/** Every pixel of a region sampled on a grid is the colour. */
export function regionIs(png: DecodedPng, colour: [number, number, number], box: { x0: number; y0: number; x1: number; y1: number }): boolean {
  return regionMismatch(png, colour, box) === null;
}

/** Where a region is not the colour, for an assertion's message: how many samples differ and the first of them; null when it all is. */
export function regionMismatch(png: DecodedPng, colour: [number, number, number], box: { x0: number; y0: number; x1: number; y1: number }): string | null {
  let samples = 0;
  let wrong = 0;
  let first = "";
  for (let y = box.y0; y <= box.y1; y += 4) {
    for (let x = box.x0; x <= box.x1; x += 8) {
      samples += 1;
      const pixel = png.pixel(x, y);
      if (near(pixel, colour)) continue;
      wrong += 1;
      if (first === "") first = `(${x}, ${y}) is rgb(${pixel.join(", ")})`;
    }
  }
  return wrong === 0 ? null : `${wrong} of ${samples} samples are not rgb(${colour.join(", ")}); the first, ${first} (image ${png.width}x${png.height})`;
}

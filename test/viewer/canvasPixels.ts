/**
 * What the viewer page's 3D canvas shows, read in the page: how many pixels differ from the
 * background, how many colours, and a hash of all of them. Its page globals are typed here because
 * the Node test program has no DOM types; the in-page function is serialised, so it reaches them
 * through `globalThis` itself.
 */
import type { Page } from 'playwright-core';

interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(c: CanvasLike, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
}
interface DocumentLike {
  getElementById(id: string): CanvasLike;
  createElement(tag: 'canvas'): CanvasLike;
}

/** Pixels of the WebGL canvas: how many differ from the background (0xdfe3e8), and a hash of all of them. */
export function canvasPixels(
  page: Page,
): Promise<{ width: number; height: number; foreground: number; colours: number; hash: number }> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: DocumentLike }).document;
    const gl = doc.getElementById('scene-canvas');
    const c = doc.createElement('canvas');
    c.width = gl.width;
    c.height = gl.height;
    const g = c.getContext('2d');
    g.drawImage(gl, 0, 0);
    const px = g.getImageData(0, 0, c.width, c.height).data;
    let foreground = 0;
    let hash = 2166136261;
    const colours = new Set<number>();
    for (let i = 0; i < px.length; i += 4) {
      const [r, gg, b] = [px[i]!, px[i + 1]!, px[i + 2]!];
      // The background is 0xdfe3e8.
      if (Math.abs(r - 0xdf) + Math.abs(gg - 0xe3) + Math.abs(b - 0xe8) > 12) foreground++;
      if (i % 64 === 0) colours.add((r >> 3) * 1024 + (gg >> 3) * 32 + (b >> 3));
      hash = Math.imul(hash ^ (r | (gg << 8) | (b << 16)), 16777619) >>> 0;
    }
    return { width: c.width, height: c.height, foreground, colours: colours.size, hash };
  });
}

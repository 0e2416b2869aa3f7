/** A cleared 2D context sized to the canvas's CSS box at the screen's pixel ratio (sharp lines). */
export function sharpContext(
  canvas: HTMLCanvasElement,
  fallbackWidth: number,
  fallbackHeight: number,
): { g: CanvasRenderingContext2D; w: number; h: number } {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || fallbackWidth;
  const h = canvas.clientHeight || fallbackHeight;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const g = canvas.getContext('2d')!;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  return { g, w, h };
}

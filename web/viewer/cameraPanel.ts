/**
 * Camera frames at the current step: the real episode's cameras, and beside them the world
 * model's decoded frames per ensemble member (video kind). The state kind predicts no pixels;
 * the panel says so instead of showing anything made up.
 */
import type { EpisodeView } from '../../src/viewer/messages.ts';

export class CameraPanel {
  #real = document.getElementById('real-frames')!;
  #imagined = document.getElementById('imagined-frames')!;
  #note = document.getElementById('imagined-note')!;
  #realCanvases: HTMLCanvasElement[] = [];
  #memberCanvases: HTMLCanvasElement[] = [];
  #view: EpisodeView | null = null;

  show(view: EpisodeView): void {
    this.#view = view;
    this.#real.replaceChildren();
    this.#imagined.replaceChildren();
    this.#realCanvases = view.cameras.map((c) => addFrame(this.#real, `${c.name} (real)`, c.width, c.height));
    const im = view.imagined;
    this.#memberCanvases = [];
    if (im?.frames) {
      const size = im.frames.size;
      for (let k = 0; k < im.members; k++)
        this.#memberCanvases.push(addFrame(this.#imagined, `member ${k + 1}`, size, size));
      this.#note.textContent = `decoded by the video world model, ${size}×${size}, replaying the real actions`;
    } else if (im) {
      this.#note.textContent =
        `the ${im.kind} world model predicts ` +
        `joints${im.ghostGeoms.length > 0 ? ' (the ghosts in the 3D view)' : ''} and ` +
        `a latent, not pixels: no imagined frames. A video-kind model (wmrl wm ` +
        `train --kind video, then wmrl view --world-model DIR) decodes frames here.`;
    } else {
      this.#note.textContent = view.imaginationNote ?? 'no imagination for this episode';
    }
  }

  setFrame(t: number): void {
    const view = this.#view;
    if (!view) return;
    view.cameras.forEach((c, i) => {
      const T = c.frames.length / (c.width * c.height * 3) - 1;
      const f = Math.min(t, T) * c.width * c.height * 3;
      paint(this.#realCanvases[i]!, c.frames.subarray(f, f + c.width * c.height * 3), c.width, c.height);
    });
    const im = view.imagined;
    if (im?.frames) {
      const s = im.frames.size;
      const step = Math.min(t, im.horizon);
      for (let k = 0; k < im.members; k++) {
        const o = (step * im.members + k) * s * s * 3;
        paint(this.#memberCanvases[k]!, im.frames.data.subarray(o, o + s * s * 3), s, s);
      }
    }
  }
}

/** Append a labelled canvas to `parent`; returns the canvas. */
function addFrame(parent: HTMLElement, label: string, width: number, height: number): HTMLCanvasElement {
  const fig = document.createElement('figure');
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const caption = document.createElement('figcaption');
  caption.textContent = label;
  fig.append(canvas, caption);
  parent.append(fig);
  return canvas;
}

function paint(canvas: HTMLCanvasElement, rgb: Uint8Array, width: number, height: number): void {
  const image = new ImageData(width, height);
  for (let i = 0, j = 0; i < width * height * 3; i += 3, j += 4) {
    image.data[j] = rgb[i]!;
    image.data[j + 1] = rgb[i + 1]!;
    image.data[j + 2] = rgb[i + 2]!;
    image.data[j + 3] = 255;
  }
  canvas.getContext('2d')!.putImageData(image, 0, 0);
}

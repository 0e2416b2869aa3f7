/** The RGB the renderer shows for each task colour (distinct in hue at 32×32). */
import type { ColorName } from '../src/tasks/vocabulary.ts';

export const COLOR_RGB: Readonly<Record<ColorName, readonly [number, number, number]>> = {
  red: [0.85, 0.12, 0.1],
  green: [0.1, 0.7, 0.2],
  blue: [0.12, 0.3, 0.9],
  yellow: [0.95, 0.85, 0.1],
  purple: [0.6, 0.2, 0.8],
  orange: [1.0, 0.5, 0.05],
};

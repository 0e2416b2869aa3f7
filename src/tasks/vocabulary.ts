/**
 * The colours and object kinds instructions name. Their order is fixed: samplers draw from
 * these lists by index, so reordering them changes every seeded task and layout.
 * (The RGB the renderer shows for each colour lives with the simulator, sim/colorRgb.ts.)
 */
export const COLOR_NAMES = ['red', 'green', 'blue', 'yellow', 'purple', 'orange'] as const;
export type ColorName = (typeof COLOR_NAMES)[number];

export const OBJECT_KINDS = ['block', 'ball', 'cylinder'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

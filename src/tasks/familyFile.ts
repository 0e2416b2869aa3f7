/**
 * Reading a task family's file (the YAML familyDef.ts describes; docs/tasks.md is the reference). Every problem
 * is reported with the file and the key, and what would fix it.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import type { FamilyDef, ProgressTerm, ScenePoint, SuccessCondition } from './familyDef.ts';
import { TaskError } from './taskError.ts';
import { COLOR_NAMES, OBJECT_KINDS } from './vocabulary.ts';

const POINT_NAME = /^(gripper|target|target\.top|target\.start|zone|(site|body):[A-Za-z0-9_.\-/]+)$/;
const pointName = z.string().regex(POINT_NAME, {
  message: 'a point is gripper, target, target.top, target.start, zone, site:NAME or body:NAME',
});
const point = z.union([
  pointName,
  z.object({ at: pointName, offset: z.tuple([z.number(), z.number(), z.number()]).optional() }).strict(),
]);
const pair = z.tuple([point, point]);
const axes = z.enum(['xyz', 'xy']).default('xyz');
const metres = z.number().positive();

const condition = z.union([
  z.object({ near: pair, within: metres, axes }).strict(),
  z.object({ inside: z.tuple([point, z.literal('zone')]), margin: z.number().min(0).default(0) }).strict(),
  z.object({ above: pair, by: z.number() }).strict(),
]);
const term = z.union([
  z.object({ closer: pair, axes, weight: z.number().positive().default(1) }).strict(),
  z.object({ rise: pair, to: metres, weight: z.number().positive().default(1) }).strict(),
]);

const fileSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_-]*$/, 'lower-case letters, digits, _ and -')
      .optional(),
    instructions: z
      .object({
        templates: z.array(z.string().min(1).max(500)).min(1).optional(),
        texts: z.array(z.string().min(1).max(500)).min(1).optional(),
      })
      .strict()
      .refine((i) => (i.templates === undefined) !== (i.texts === undefined), 'give templates or texts, not both'),
    split: z
      .object({
        colors: z.array(z.enum(COLOR_NAMES)).default([]),
        templates: z.array(z.int().min(0)).default([]),
      })
      .strict()
      .default({ colors: [], templates: [] }),
    seconds: z.number().positive().max(3600),
    scene: z
      .object({
        objects: z.array(z.enum(OBJECT_KINDS)).min(1),
        zone: z.boolean().default(false),
        distractors: z.int().min(0).max(3).default(2),
        expert: z.string().min(1).optional(),
        goal: point,
        success: z.union([z.object({ all: z.array(condition).min(1), hold: z.number().min(0).default(0) }).strict()]),
        progress: z.array(term).min(1),
      })
      .strict()
      .optional(),
  })
  .strict();

type RawPoint = z.infer<typeof point>;

function scenePoint(p: RawPoint): ScenePoint {
  if (typeof p === 'string') return { at: p, offset: [0, 0, 0] };
  return { at: p.at, offset: p.offset ?? [0, 0, 0] };
}

/** The family declared by `text` (a file's contents; `file` names it in errors and gives the default name). */
export function parseFamily(text: string, file: string): FamilyDef {
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (err) {
    throw new TaskError(`${file}: not YAML: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(top)'}: ${i.message}`);
    throw new TaskError(`${file}: not a task family (docs/tasks.md):\n${lines.join('\n')}`);
  }
  const f = parsed.data;
  const name = f.name ?? basename(file, extname(file));
  const templates = f.instructions.templates ?? f.instructions.texts!;
  const problems: string[] = [];
  const templated = templates.some((t) => /\{(color|object|zone)\}/.test(t));
  if (f.instructions.texts && templated)
    problems.push('instructions.texts: fixed texts have no {color}, {object} or {zone}');
  for (const i of f.split.templates)
    if (i >= templates.length)
      problems.push(`split.templates: ${i} is past the last instruction (${templates.length - 1})`);
  if (f.split.templates.length >= templates.length && templates.length > 0 && f.split.colors.length === 0)
    problems.push('split.templates: every instruction is held out, so the train split has none');
  const scene = f.scene;
  if (scene) {
    if (!templates.every((t) => t.includes('{color}')))
      problems.push('instructions: a family with a scene names its target by colour: every template needs {color}');
    if (!scene.zone && templates.some((t) => t.includes('{zone}')))
      problems.push('scene.zone: an instruction names the {zone}: give `zone: true`');
    const points = [
      scene.goal,
      ...scene.success.all.flatMap((c) => ('near' in c ? c.near : 'above' in c ? c.above : [c.inside[0]])),
      ...scene.progress.flatMap((t) => ('closer' in t ? t.closer : t.rise)),
    ].map(scenePoint);
    if (!scene.zone && (points.some((p) => p.at === 'zone') || scene.success.all.some((c) => 'inside' in c)))
      problems.push('scene: a condition names the zone, but the scene has none (zone: true)');
    const weights = scene.progress.reduce((s, t) => s + t.weight, 0);
    if (Math.abs(weights - 1) > 1e-9) problems.push(`scene.progress: the weights sum to ${weights}, not 1`);
  } else if (templated) {
    problems.push('instructions: {color}, {object} and {zone} need a scene to fill them in');
  }
  if (problems.length > 0)
    throw new TaskError(`${file}: not a task family (docs/tasks.md):\n  ${problems.join('\n  ')}`);
  const def: FamilyDef = {
    name,
    file,
    templates,
    heldOutColors: f.split.colors,
    heldOutTemplates: f.split.templates,
    seconds: f.seconds,
  };
  if (scene) {
    def.scene = {
      objects: scene.objects,
      zone: scene.zone,
      distractors: scene.distractors,
      ...(scene.expert !== undefined ? { expert: scene.expert } : {}),
      goal: scenePoint(scene.goal),
      success: { all: scene.success.all.map(successCondition), hold: scene.success.hold },
      progress: scene.progress.map(progressTerm),
    };
  }
  return def;
}

function successCondition(c: z.infer<typeof condition>): SuccessCondition {
  if ('near' in c) return { near: [scenePoint(c.near[0]), scenePoint(c.near[1])], within: c.within, axes: c.axes };
  if ('inside' in c) return { inside: [scenePoint(c.inside[0]), 'zone'], margin: c.margin };
  return { above: [scenePoint(c.above[0]), scenePoint(c.above[1])], by: c.by };
}

function progressTerm(t: z.infer<typeof term>): ProgressTerm {
  if ('closer' in t)
    return { closer: [scenePoint(t.closer[0]), scenePoint(t.closer[1])], axes: t.axes, weight: t.weight };
  return { rise: [scenePoint(t.rise[0]), scenePoint(t.rise[1])], to: t.to, weight: t.weight };
}

/** The family in the YAML file at `path`. */
export function readFamilyFile(path: string): FamilyDef {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new TaskError(`cannot read task family ${path}: ${(err as Error).message}`);
  }
  return parseFamily(text, path);
}

/**
 * The YAML of a family of fixed texts (a dataset's own words): all in the train split, `seconds` long, with a
 * comment saying where it came from (`about`) and how to hold texts out.
 */
export function textFamilyYaml(texts: readonly string[], seconds: number, about: string): string {
  const body = YAML.stringify({ instructions: { texts: [...texts] }, split: { templates: [] }, seconds });
  return (
    `# ${about}\n` +
    '# Every text is in the train split; to hold some out for evaluation, list their indices under\n' +
    '# split.templates (docs/tasks.md) before the episodes are recorded or imported.\n' +
    body
  );
}

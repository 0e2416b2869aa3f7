/**
 * Builds the MJCF of a scene: the robot's own MJCF (included unchanged), a table, world-fixed
 * cameras from the robot description, and the task's objects and goal zones. The XML depends
 * only on the scene's structure (object kinds, zone count) and the arm's layout scale (the
 * table's size); positions and colours are set on the compiled model per episode, so compiled
 * models can be reused.
 */
import type { RobotDescription } from '../src/core/robotDescription.ts';
import { OBJECT_HALF_HEIGHT, type SceneLayout, zoneRadius } from './layout.ts';
import type { ObjectKind } from '../src/tasks/vocabulary.ts';

export const TABLE_RGBA = '0.72 0.64 0.52 1';

export interface SceneStructure {
  objects: ObjectKind[];
  zones: number;
}

export function structureOf(layout: SceneLayout): SceneStructure {
  return { objects: layout.objects.map((o) => o.kind), zones: layout.zones.length };
}

export function structureKey(s: SceneStructure): string {
  return `${s.objects.join(',')}|${s.zones}`;
}

/** Camera orientation (MJCF xyaxes) looking from `pos` at `target` with world z up. */
export function lookAtXyAxes(pos: readonly number[], target: readonly number[]): number[] {
  const d = normalize([target[0]! - pos[0]!, target[1]! - pos[1]!, target[2]! - pos[2]!]);
  const x = normalize(cross(d, [0, 0, 1]));
  const y = cross(x, d);
  return [...x, ...y];
}

export interface SceneXmlOptions {
  /** The file name the scene includes the robot's MJCF by (it sits beside the scene file). */
  robotFile: string;
  /** The arm's layout scale (armReach.ts); the table grows with it. */
  scale?: number;
}

/** Table half-sizes (m) at layout scale 1. */
const TABLE_HALF = [0.9, 0.7];

export function buildSceneXml(robot: RobotDescription, structure: SceneStructure, options: SceneXmlOptions): string {
  const scale = options.scale ?? 1;
  const fmt = (v: number[]) => v.map((n) => +n.toFixed(6)).join(' ');
  const cameras = robot.cameras
    .filter((c) => c.pos && c.lookAt)
    .map(
      (c) =>
        `    <camera name="${c.name}" pos="${fmt(c.pos!)}" ` +
        `xyaxes="${fmt(lookAtXyAxes(c.pos!, c.lookAt!))}" fovy="${c.fovy}"/>`,
    );
  const objects = structure.objects.map((kind, i) => {
    const h = OBJECT_HALF_HEIGHT[kind];
    const geom =
      kind === 'block'
        ? `type="box" size="${h} ${h} ${h}"`
        : kind === 'ball'
          ? `type="sphere" size="${h}"`
          : `type="cylinder" size="0.02 ${h}"`;
    // Light objects with high friction and soft contacts grasp stably with position-controlled fingers.
    return [
      `    <body name="object${i}" pos="0 0 ${h}">`,
      `      <freejoint name="object${i}"/>`,
      `      <geom name="object${i}" ${geom} mass="0.05" friction="1.5 ` +
        `0.01 0.0001" condim="4" solref="0.01 1" rgba="1 1 1 1"/>`,
      `    </body>`,
    ].join('\n');
  });
  const zones = Array.from({ length: structure.zones }, (_, i) =>
    [
      `    <body name="zone${i}" mocap="true" pos="0 0 0">`,
      `      <geom name="zone${i}" type="cylinder" size="${+zoneRadius(scale).toFixed(6)} 0.0008" ` +
        `pos="0 0 0.0008" contype="0" conaffinity="0" rgba="1 1 1 1"/>`,
      `    </body>`,
    ].join('\n'),
  );
  return [
    `<mujoco model="${robot.name}-scene">`,
    `  <include file="${options.robotFile}"/>`,
    `  <worldbody>`,
    `    <geom name="table" type="plane" size="${fmt(TABLE_HALF.map((h) => h * scale))} 0.01" ` +
      `rgba="${TABLE_RGBA}" friction="1 0.005 0.0001"/>`,
    ...cameras,
    ...objects,
    ...zones,
    `  </worldbody>`,
    `</mujoco>`,
    '',
  ].join('\n');
}

function cross(a: number[], b: number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

function normalize(v: number[]): number[] {
  const n = Math.hypot(...v);
  if (n === 0) throw new Error('camera pos and lookAt coincide');
  return v.map((x) => x / n);
}

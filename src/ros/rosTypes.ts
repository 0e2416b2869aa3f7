/**
 * ROS interface type names in both spellings, and the translation between them. ROS 1 names a
 * type `pkg/Type`; ROS 2 names it `pkg/msg/Type` (`pkg/srv/Type` for services). A robot
 * description may use either; the rosbridge client speaks the form of the server it talks to:
 * ROS 1 rosbridge (rosbridge_suite 0.11.x) refuses the three-part form (its ros_loader splits a
 * type on `/` and wants exactly two parts), and the first ROS 2 releases wanted exactly three.
 */

export type RosVersion = 1 | 2;
export type InterfaceKind = 'msg' | 'srv';

export interface RosTypeName {
  pkg: string;
  /** The middle part of a ROS 2 name; undefined for a ROS 1 name. */
  kind: InterfaceKind | undefined;
  name: string;
}

const TYPE = /^([A-Za-z][A-Za-z0-9_]*)\/(?:(msg|srv)\/)?([A-Za-z][A-Za-z0-9_]*)$/;

export class RosTypeError extends Error {
  override name = 'RosTypeError';
}

/** Split `pkg/Type` or `pkg/msg/Type` / `pkg/srv/Type`; undefined for anything else. */
export function parseRosType(type: string): RosTypeName | undefined {
  const m = TYPE.exec(type);
  if (!m) return undefined;
  return { pkg: m[1]!, kind: m[2] as InterfaceKind | undefined, name: m[3]! };
}

/** Which spelling a type name uses: 1 for `pkg/Type`, 2 for `pkg/msg/Type`. */
export function typeNameForm(type: string): RosVersion | undefined {
  const t = parseRosType(type);
  return t === undefined ? undefined : t.kind === undefined ? 1 : 2;
}

/** `type` spelled for a server of `version`; `kind` says what it names (a name of the other kind is an error). */
export function rosTypeFor(type: string, version: RosVersion, kind: InterfaceKind): string {
  const t = parseRosType(type);
  if (!t) throw new RosTypeError(`'${type}' is not a ROS type name (pkg/Type or pkg/${kind}/Type)`);
  if (t.kind !== undefined && t.kind !== kind)
    throw new RosTypeError(`'${type}' names a ${t.kind === 'msg' ? 'message' : 'service'}, not a ${kind}`);
  return version === 1 ? `${t.pkg}/${t.name}` : `${t.pkg}/${kind}/${t.name}`;
}

/** Whether two names denote the same type, whatever their spelling. */
export function sameRosType(a: string, b: string): boolean {
  const x = parseRosType(a);
  const y = parseRosType(b);
  return x !== undefined && y !== undefined && x.pkg === y.pkg && x.name === y.name;
}

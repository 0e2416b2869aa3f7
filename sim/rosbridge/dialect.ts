/**
 * The two rosbridge dialects the sim server speaks, as rosbridge_suite's two lines behave
 * (docs/rosbridge.md says where each fact comes from):
 *
 * - ROS 2 (rosbridge_suite 1.x/2.x, the default): either type spelling loads, `pkg/msg/Type` is
 *   what rosapi lists, headers stamp `{sec, nanosec}`, rosapi has /rosapi/get_ros_version.
 * - ROS 1 (rosbridge_suite 0.11.x): only `pkg/Type` loads (ros_loader wants exactly two parts;
 *   anything else is "… is not a valid type string"), headers are `{seq, stamp: {secs, nsecs}}`,
 *   rosapi has no get_ros_version, and a refused op is only logged: no status message at all.
 *
 * In both, JSON carries a non-finite float as `null` (message_conversion maps NaN/Inf to None).
 */
import type { Ros1Header, RosHeader } from '../../src/ros/messages.ts';
import { rosTypeFor, typeNameForm, type InterfaceKind, type RosVersion } from '../../src/ros/rosTypes.ts';

export interface SimDialect {
  version: RosVersion;
  /** What /rosapi/get_ros_version reports (ROS 2 only). */
  distro: string;
  /** Whether this rosbridge loads a type spelled this way. */
  loads(type: string): boolean;
  /** A type in the spelling this ROS uses (what rosapi lists). */
  spell(type: string, kind: InterfaceKind): string;
  /** The name rosbridge gives a service's request message in errors. */
  requestName(serviceType: string): string;
  header(seconds: number, frameId: string, seq: number): RosHeader | Ros1Header;
  /** Refused ops are answered with a status message (ROS 2 sim) or only logged (ROS 1, as rosbridge_suite). */
  answersRefusals: boolean;
}

export function simDialect(version: RosVersion): SimDialect {
  const spell = (type: string, kind: InterfaceKind) => rosTypeFor(type, version, kind);
  if (version === 1)
    return {
      version,
      distro: 'noetic',
      loads: (type) => typeNameForm(type) === 1,
      spell,
      requestName: (serviceType) => `${spell(serviceType, 'srv')}Request`,
      header: (seconds, frameId, seq) => {
        const secs = Math.floor(seconds);
        return { seq, stamp: { secs, nsecs: Math.round((seconds - secs) * 1e9) }, frame_id: frameId };
      },
      answersRefusals: false,
    };
  return {
    version,
    distro: 'humble',
    loads: (type) => typeNameForm(type) !== undefined,
    spell,
    requestName: (serviceType) => `${rosTypeFor(serviceType, 1, 'srv')}_Request`,
    header: (seconds, frameId) => {
      const sec = Math.floor(seconds);
      return { stamp: { sec, nanosec: Math.round((seconds - sec) * 1e9) }, frame_id: frameId };
    },
    answersRefusals: true,
  };
}

/**
 * What the client settles with a rosbridge server on each connection: the ROS version it speaks
 * (from the description's `ros.version`, or asked of rosapi) and, where rosapi answers, the
 * topics of the robot's ROS graph with their types. With these a subscription the server would
 * refuse — a type name in the other version's spelling, a wrong type, a topic nothing publishes —
 * fails at once with the reason. rosbridge_suite itself never tells a client: it logs the refusal
 * (its Protocol.log goes to the node's logger) and sends nothing, so the client would only see a
 * timeout. docs/rosbridge.md has the details and where they come from.
 */
import { parseRosType, rosTypeFor, sameRosType, typeNameForm, type RosVersion } from '../ros/rosTypes.ts';
import { isRecord } from '../ros/messages.ts';
import { RosbridgeDisconnectedError, ServiceTimeoutError } from './rosbridgeConnection.ts';

export interface RosbridgeDialect {
  version: RosVersion;
  /** How the version was settled, for messages. */
  source: string;
  /** Topic → type as /rosapi/topics lists it; undefined when rosapi did not answer. */
  graph: Map<string, string> | undefined;
  /** Why there is no graph, when there is none. */
  graphError: string | undefined;
}

/** One topic the client uses: it subscribes to what the robot publishes and advertises its commands. */
export interface TopicUse {
  topic: string;
  /** The type as the description spells it. */
  type: string;
  role: 'subscribe' | 'advertise';
}

export class RosbridgeDialectError extends Error {
  override name = 'RosbridgeDialectError';
}

/** A service call that resolves with the response values or rejects (see RosbridgeConnection.call). */
export type CallService = (service: string, args: unknown) => Promise<unknown>;

export const ROSAPI = { version: '/rosapi/get_ros_version', topics: '/rosapi/topics' } as const;

/** Settle the version (`wanted`, or rosapi's answer for auto) and read the graph. */
export async function negotiateDialect(
  call: CallService,
  wanted: RosVersion | 'auto' | undefined,
  url: string,
): Promise<RosbridgeDialect> {
  const [topics, version] = await Promise.allSettled([
    call(ROSAPI.topics, {}),
    wanted === undefined || wanted === 'auto' ? call(ROSAPI.version, {}) : Promise.resolve(undefined),
  ]);
  for (const r of [topics, version])
    if (r.status === 'rejected' && r.reason instanceof RosbridgeDisconnectedError) throw r.reason;
  // Asked for the version and answered nothing at all: an unresponsive link, not a missing rosapi.
  if (
    topics.status === 'rejected' &&
    topics.reason instanceof ServiceTimeoutError &&
    version.status === 'rejected' &&
    version.reason instanceof ServiceTimeoutError
  )
    throw topics.reason;
  let graph: Map<string, string> | undefined;
  let graphError: string | undefined;
  if (topics.status === 'fulfilled') {
    graph = readTopics(topics.value);
    if (!graph) graphError = `${ROSAPI.topics} replied ${JSON.stringify(topics.value)?.slice(0, 120)}`;
  } else graphError = `${ROSAPI.topics}: ${(topics.reason as Error).message}`;
  if (wanted === 1 || wanted === 2)
    return { version: wanted, source: 'ros.version in the robot description', graph, graphError };

  if (version.status === 'fulfilled') {
    const v = isRecord(version.value) ? version.value.version : undefined;
    if (v === 1 || v === 2) return { version: v, source: ROSAPI.version, graph, graphError };
  }
  // ROS 1 rosapi (0.11.x) has no get_ros_version: the graph's type names tell the version instead.
  const form = graph ? graphForm(graph) : undefined;
  if (form) return { version: form, source: `the type names ${ROSAPI.topics} lists`, graph, graphError };
  const versionError =
    version.status === 'rejected'
      ? (version.reason as Error).message
      : `replied ${JSON.stringify(version.value)?.slice(0, 120)}`;
  throw new RosbridgeDialectError(
    `cannot tell which ROS version rosbridge at ${url} speaks: ${ROSAPI.version}: ${versionError}; ` +
      `${graphError ?? `${ROSAPI.topics} lists no typed topics`}. Run rosapi next to rosbridge (the ` +
      'rosbridge_websocket launch files start it), or set ros.version: 1 or 2 in the robot description',
  );
}

/** /rosapi/topics' reply {topics: string[], types: string[]} as a map; undefined if it is not that. */
function readTopics(values: unknown): Map<string, string> | undefined {
  if (!isRecord(values) || !Array.isArray(values.topics) || !Array.isArray(values.types)) return undefined;
  const { topics, types } = values;
  if (topics.length !== types.length) return undefined;
  const graph = new Map<string, string>();
  topics.forEach((t, i) => {
    if (typeof t === 'string' && typeof types[i] === 'string') graph.set(t, types[i] as string);
  });
  return graph;
}

/** The spelling the graph's type names use: 2 if any has `/msg/`, 1 if all have two parts. */
export function graphForm(graph: Map<string, string>): RosVersion | undefined {
  const forms = [...graph.values()].map(typeNameForm).filter((f) => f !== undefined);
  if (forms.length === 0) return undefined;
  return forms.includes(2) ? 2 : 1;
}

/** The type to send for a topic: the description's type in the server's spelling. */
export function wireType(type: string, version: RosVersion): string {
  return rosTypeFor(type, version, 'msg');
}

/**
 * What would make the server refuse, or never serve, these topics, one line per problem naming
 * the topic and the likely cause. Without a graph only the spelling can be checked.
 */
export function topicProblems(dialect: RosbridgeDialect, uses: TopicUse[]): string[] {
  const { graph, version } = dialect;
  const problems: string[] = [];
  // A ROS 1 rosbridge refuses every `pkg/msg/Type` (its ros_loader wants exactly two parts); ROS 2
  // rosbridge from 1.x on also loads `pkg/Type`, so only this direction is a certain refusal.
  if (version === 2 && graph && graphForm(graph) === 1) {
    const example = [...graph.values()].find((t) => typeNameForm(t) === 1);
    const sample = uses[0] ? wireType(uses[0].type, version) : 'pkg/msg/Type';
    return [
      `the server lists ROS 1 type names (${example}), but the client was told to speak ROS 2 ` +
        `(${dialect.source}); ROS 1 rosbridge refuses ${sample} ('is not a valid type string'): ` +
        'set ros.version: auto or 1',
    ];
  }
  for (const use of uses) {
    const known = graph?.get(use.topic);
    if (known !== undefined && parseRosType(known) && !sameRosType(known, use.type)) {
      problems.push(
        `${use.topic} has type ${known} on the robot, but the robot description says ${use.type} ` +
          `(rosbridge refuses a ${use.role} with a conflicting type)`,
      );
    } else if (known === undefined && graph && use.role === 'subscribe') {
      problems.push(
        `${use.topic} is not in the robot's ROS graph (${ROSAPI.topics}): nothing publishes it; ` +
          'check the driver, or the topic name in the robot description',
      );
    }
  }
  return problems;
}

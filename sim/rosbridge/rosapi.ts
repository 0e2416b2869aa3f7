/**
 * The rosapi services a rosbridge launch brings along (rosbridge_websocket.launch in ROS 1,
 * rosbridge_websocket_launch.xml in ROS 2 both start the rosapi node), as far as a client needs
 * them to learn the server's dialect: /rosapi/topics lists the graph's topics with their types in
 * that ROS's spelling, and /rosapi/get_ros_version exists in ROS 2 rosapi only (added in
 * rosbridge_suite 1.2.0; the ROS 1 0.11.x releases do not have it).
 */
import type { SimDialect } from './dialect.ts';

export interface GraphTopic {
  topic: string;
  /** As the robot description spells it. */
  type: string;
}

export function rosapiServices(dialect: SimDialect, graph: GraphTopic[]): Map<string, (args: unknown) => unknown> {
  // Every ROS graph has the log topic; it also shows the spelling when the robot has no topics.
  const log = dialect.version === 1 ? 'rosgraph_msgs/Log' : 'rcl_interfaces/msg/Log';
  const listed = [
    ...graph.map((t) => ({ topic: t.topic, type: dialect.spell(t.type, 'msg') })),
    { topic: '/rosout', type: log },
  ];
  const services = new Map<string, (args: unknown) => unknown>([
    ['/rosapi/topics', () => ({ topics: listed.map((t) => t.topic), types: listed.map((t) => t.type) })],
  ]);
  if (dialect.version === 2)
    services.set('/rosapi/get_ros_version', () => ({ version: dialect.version, distro: dialect.distro }));
  return services;
}

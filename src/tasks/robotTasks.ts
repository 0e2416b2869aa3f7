/**
 * A robot description with the task families that come with it: a `tasks/` folder beside its robot.yaml holds
 * families of that robot's own (docs/tasks.md), registered as the robot is loaded.
 */
import { dirname } from 'node:path';
import { loadRobot, type RobotDescription } from '../core/robotDescription.ts';
import { addTasksBeside } from './families.ts';

/** loadRobot, then the families in `tasks/` beside the description. */
export function loadRobotWithTasks(ref: string): RobotDescription {
  const robot = loadRobot(ref);
  addTasksBeside(dirname(robot.file));
  return robot;
}

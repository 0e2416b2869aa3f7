/** A task scene whose positions and clock a test sets: the gripper, the target's pose, the zone, one named body. */
import type { TaskScene } from '../../sim/taskProgress.ts';

export class FakeScene implements TaskScene {
  ee = [0, 0, 0.3];
  object = [0, 0, 0.02, 1, 0, 0, 0];
  zone = [0, 0, 0];
  time = 0;
  endEffector() {
    return { pos: this.ee };
  }
  objectPose() {
    return this.object;
  }
  zonePosition() {
    return this.zone;
  }
  /** The body `moving_jaw`, 2 cm beside the gripper; any other name is refused. */
  namedPosition(kind: 'site' | 'body', name: string) {
    if (kind === 'body' && name === 'moving_jaw') return [this.ee[0]!, this.ee[1]! + 0.02, this.ee[2]!];
    throw new Error(`no ${kind} ${name}`);
  }
}

/** A robot description outside the package: robots/vx300 copied to `parent/<name>/`, renamed. */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';

/** Returns the copy's folder. A name other than vx300 makes any reload by name alone fail loudly. */
export function copyRobot(parent: string, name: string): string {
  const src = loadRobot('vx300').dir;
  const dir = join(parent, name);
  cpSync(src, dir, { recursive: true });
  const yaml = join(dir, 'robot.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('name: vx300', `name: ${name}`));
  return dir;
}

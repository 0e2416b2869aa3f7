/**
 * What `wmrl run` checks before it moves a robot: the policy folder, that the policy fits the
 * robot, the instruction against the policy's vocabulary, and the task the robot is set up for.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { actionDim, type RobotDescription } from '../core/robotDescription.ts';
import { Rng } from '../core/rng.ts';
import type { TaskSpec } from '../core/types.ts';
import { UNK } from '../policy/tokenizer.ts';
import { policyCamera } from '../policy/policyConfig.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { addFamily, familyDef } from '../tasks/families.ts';
import { taskOfInstruction } from '../tasks/instructionTask.ts';
import { sampleTask } from '../tasks/sampleTask.ts';
import { parseTaskSelectors } from '../tasks/selectors.ts';
import { TaskError } from '../tasks/taskError.ts';
import { UsageError } from './args.ts';

/** The checkpoint folder of `--policy DIR`: DIR itself, or a pretrain/train output's DIR/policy. */
export function policyFolder(dir: string): string {
  if (!existsSync(dir)) throw new UsageError(`--policy ${dir}: no such folder`);
  if (existsSync(join(dir, 'model.json'))) return dir;
  if (existsSync(join(dir, 'policy', 'model.json'))) return join(dir, 'policy');
  throw new UsageError(
    `--policy ${dir} holds no policy checkpoint (no model.json, no policy/model.json): ` +
      'give a `wmrl pretrain` or `wmrl train` output folder',
  );
}

/** The policy must read one of the robot's cameras and command its joints. */
export function checkPolicyFitsRobot(policy: VlaPolicy, dir: string, robot: RobotDescription): void {
  const camera = policyCamera(policy.config, robot.cameras[0]!.name);
  const cameras = robot.cameras.map((c) => c.name);
  if (!cameras.includes(camera))
    throw new UsageError(
      `the policy ${dir} looks through camera '${camera}', which robot '${robot.name}' lacks (${cameras.join(', ')})`,
    );
  if (policy.actionDim !== actionDim(robot))
    throw new UsageError(
      `the policy ${dir} commands ${policy.actionDim} values per step; robot '${robot.name}' takes ` +
        `${actionDim(robot)} (${robot.arm.joints.length} arm joints and the gripper)`,
    );
}

/**
 * Warnings about how the policy will read the instruction of `task`: words it never saw, an instruction it cannot
 * read at all, a task of a family its demonstrations did not show.
 */
export function instructionWarnings(policy: VlaPolicy, instruction: string, task?: TaskSpec): string[] {
  const tokenizer = policy.tokenizer;
  const words = tokenizer.wordCount(instruction);
  if (words === 0) throw new UsageError('--instruction has no words');
  const unknown = tokenizer.unknownWords(instruction);
  const known = tokenizer.vocab.slice(UNK + 1);
  const warnings: string[] = [];
  const families = policy.meta.families;
  if (task && families && !families.includes(task.family))
    warnings.push(
      `the policy was not trained on this task: its demonstrations were of ${families.join(', ')}, ` +
        `this is ${task.family}`,
    );
  if (!tokenizer.encode(instruction).some((id) => id > UNK)) {
    warnings.push(
      `the policy knows none of the words of "${instruction}", so it acts as if given no instruction; ` +
        `it was trained on: ${known.join(' ')}`,
    );
    return warnings;
  }
  if (unknown.length > 0) {
    const readings = unknown.map((w) => {
      const as = tokenizer.readAs(w);
      return as === undefined ? `'${w}' (as <unk>)` : `'${w}' (as '${as}', by its spelling)`;
    });
    warnings.push(
      `the policy never saw the word${unknown.length > 1 ? 's' : ''} ${readings.join(', ')}; ` +
        `its vocabulary: ${known.join(' ')}`,
    );
  }
  if (words > tokenizer.maxTokens)
    warnings.push(`the instruction has ${words} words; the policy reads only the first ${tokenizer.maxTokens}`);
  return warnings;
}

/** How long an episode of an instruction no family phrases may last on a robot (--max-steps ends it sooner). */
export const FREE_TEXT_SECONDS = 60;

/**
 * The task the robot is reset to and scored on: `--task` when given (the instruction is then only what the policy
 * reads), else the task the instruction names. On a robot any text is a task (a family of that one text, with no
 * scene: the person at the robot sets it up); the simulator needs a family with a scene to know what to set up.
 */
export function runTask(
  instruction: string,
  taskFlag: string | undefined,
  seed: number,
  env: 'sim' | 'rosbridge' = 'sim',
): TaskSpec {
  if (taskFlag === undefined) {
    const task = taskOfInstruction(instruction);
    if (task && (env === 'rosbridge' || familyDef(task.family).scene)) return task;
    if (env === 'sim')
      throw new UsageError(
        `"${instruction}" is no phrasing of a task family with a scene (\`wmrl tasks\` lists them), so the ` +
          'simulator cannot tell what to set up: add --task family[:colour[:object|zone]] (the instruction is then ' +
          'only what the policy reads), or run it on your robot (--url), where any instruction is a task',
      );
    return freeTextTask(instruction);
  }
  const selectors = parseTaskSelectors(taskFlag);
  if (selectors.length !== 1) throw new UsageError(`--task names one task, got ${selectors.length}: '${taskFlag}'`);
  const rng = () => new Rng(seed ^ 0x7a5c0de);
  let task: TaskSpec;
  try {
    task = sampleTask(selectors[0]!, 'train', rng());
  } catch (err) {
    // A held-out colour exists only in the test split.
    if (!(err instanceof TaskError)) throw err;
    task = sampleTask(selectors[0]!, 'test', rng());
  }
  return { ...task, instruction: instruction.trim() };
}

/** A task of `instruction` alone: a family of that one fixed text, registered under a name its words give. */
function freeTextTask(instruction: string): TaskSpec {
  const text = instruction.trim().slice(0, 500);
  const name = `said-${createHash('sha256').update(text).digest('hex').slice(0, 8)}`;
  addFamily({
    name,
    file: '(wmrl run --instruction)',
    templates: [text],
    heldOutColors: [],
    heldOutTemplates: [],
    seconds: FREE_TEXT_SECONDS,
  });
  return { family: name, template: 0, split: 'train', instruction: text };
}

/** `--view` may come without its port: give it the default, so that parseArgs sees a value. */
export function withOptionalValue(argv: string[], flag: string, fallback: string): string[] {
  return argv.flatMap((arg, i) => {
    const next = argv[i + 1];
    return arg === flag && (next === undefined || next.startsWith('--')) ? [arg, fallback] : [arg];
  });
}

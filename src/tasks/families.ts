/**
 * The task family registry. The built-in families are files in configs/tasks/ (BUILT_IN, in the world model's
 * one-hot order: append, never reorder); a user adds one with a file (`--task-file PATH`, a `tasks/` folder beside a
 * robot description or in a dataset) and no code change. Everything per family (selectors, sampling, splits, the
 * scene and its success condition) reads it from here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { CONFIGS_DIR } from '../core/robotDescription.ts';
import type { FamilyDef } from './familyDef.ts';
import { readFamilyFile, textFamilyYaml } from './familyFile.ts';
import { TaskError } from './taskError.ts';

export type { FamilyDef } from './familyDef.ts';

/** A family's name. */
export type TaskFamily = string;

/** The families configs/tasks/ holds, in the world model's one-hot order. */
export const BUILT_IN = ['reach', 'push', 'pick'] as const;
export const TASKS_DIR = join(CONFIGS_DIR, 'tasks');

const registry = new Map<string, FamilyDef>();
for (const name of BUILT_IN) register(readFamilyFile(join(TASKS_DIR, `${name}.yaml`)));

function register(def: FamilyDef): void {
  const known = registry.get(def.name);
  if (known) {
    if (JSON.stringify({ ...known, file: '' }) === JSON.stringify({ ...def, file: '' })) return;
    throw new TaskError(
      `task family '${def.name}' is declared twice, differently: ${known.file} and ${def.file}; rename one (name: …)`,
    );
  }
  registry.set(def.name, def);
}

/**
 * Registers the families of a YAML file, or of every .yaml/.yml file in a folder; returns their names. The same
 * family read twice (the same file, or an identical copy) is fine; two different families of one name are refused.
 */
export function addTaskFiles(path: string): string[] {
  const full = resolve(path);
  if (!existsSync(full)) throw new TaskError(`--task-file ${path}: no such file or folder`);
  const files = statSync(full).isDirectory()
    ? readdirSync(full)
        .filter((f) => ['.yaml', '.yml'].includes(extname(f)))
        .sort()
        .map((f) => join(full, f))
    : [full];
  return files.map((f) => {
    const def = readFamilyFile(f);
    register(def);
    return def.name;
  });
}

/** Registers the families in `<dir>/tasks/` (beside a robot description, or in a dataset) when there is one. */
export function addTasksBeside(dir: string): string[] {
  const folder = join(dir, 'tasks');
  return existsSync(folder) && statSync(folder).isDirectory() ? addTaskFiles(folder) : [];
}

/** Registers a family declared in code (an import's families of its dataset's own texts). */
export function addFamily(def: FamilyDef): void {
  register(def);
}

/**
 * The YAML that declares `name`: its file's text, or for a family of fixed texts declared in code (`wmrl run`'s
 * instruction on a robot) the YAML of those texts. What a dataset, a policy or an export keeps of its families.
 */
export function familyYaml(name: string): string {
  const def = familyDef(name);
  if (existsSync(def.file)) return readFileSync(def.file, 'utf8');
  if (def.scene) throw new TaskError(`task family '${name}': its file ${def.file} is gone`);
  return `name: ${name}\n${textFamilyYaml(def.templates, def.seconds, `Declared by ${def.file}.`)}`;
}

/** Every registered family's name: the built-in ones first, then the rest in the order they came. */
export function taskFamilies(): string[] {
  return [...registry.keys()];
}

/** Families the simulator can set up (they declare a scene). */
export function sceneFamilies(): string[] {
  return [...registry.values()].filter((f) => f.scene).map((f) => f.name);
}

export function isTaskFamily(name: string): boolean {
  return registry.has(name);
}

/** `name` as a registered family; throws a TaskError naming the known ones otherwise. */
export function taskFamily(name: string): TaskFamily {
  if (!registry.has(name)) throw new TaskError(unknownFamily(name));
  return name;
}

function unknownFamily(name: string): string {
  return (
    `unknown task family '${name}'; known: ${taskFamilies().join(', ')} ` +
    `(a family of your own is a YAML file: --task-file FILE, docs/tasks.md)`
  );
}

/** The registry entry of a family; throws a TaskError naming the known families for an unknown one. */
export function familyDef(name: string): FamilyDef {
  const def = registry.get(name);
  if (!def) throw new TaskError(unknownFamily(name));
  return def;
}

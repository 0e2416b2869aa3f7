/**
 * The method is the same for every task family: src/rl and src/worldmodel name no family and no family's own rule,
 * in code, strings or import paths (comments may explain with an example). What is specific to a family lives in its
 * task file (configs/tasks/); a new family trains with no code change.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { addTasksBeside, BUILT_IN, taskFamilies } from '../../src/tasks/families.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The generic method's folders. */
const METHOD = ['src/rl', 'src/worldmodel'];
/** Rules once written for one family, which the keyframe score replaced: they must not come back. */
const FAMILY_RULES = ['grasp'];

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });

/** The code without its comments (line numbers kept). */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/.*$/gm, '');

/** `name` as a word of code: not a property (`.push(`), not part of a longer word; case-sensitive (`Pick<…>`). */
const namedIn = (line: string, name: string): boolean => new RegExp(`(?<![.\\w$])${name}(?![\\w$])`).test(line);

/** Each line of `files` (relative to the root) that names one of `names`. */
function violations(files: Record<string, string>, names: string[]): string[] {
  const out: string[] = [];
  for (const [file, text] of Object.entries(files))
    withoutComments(text)
      .split('\n')
      .forEach((line, i) => {
        for (const name of names)
          if (namedIn(line, name)) out.push(`${file}:${i + 1}: names '${name}': ${line.trim()}`);
      });
  return out;
}

test('src/rl and src/worldmodel name no task family and no family rule', () => {
  addTasksBeside(join(root, 'configs'));
  const names = [...new Set([...BUILT_IN, ...taskFamilies(), ...FAMILY_RULES])];
  assert.ok(names.length >= 4, `families: ${names.join(', ')}`);
  const files = Object.fromEntries(
    METHOD.flatMap((d) => sources(join(root, d))).map((p) => [relative(root, p), readFileSync(p, 'utf8')]),
  );
  assert.ok(Object.keys(files).length > 40, `found only ${Object.keys(files).length} files`);
  assert.deepEqual(violations(files, names), []);
});

test('the check finds a family named in code, a string or a path; not in a comment, a property, a longer word', () => {
  const file = [
    '// reach: an example in a comment is fine',
    "if (task.family === 'pick') score = grasp(states);",
    'const rows = []; rows.push(1); type P = Pick<A, "b">; const reached = 1;',
    "import { x } from '../tasks/pick/graspScore.ts';",
    "import { familyOneHot } from '../tasks/familyContext.ts';",
  ].join('\n');
  assert.deepEqual(violations({ 'x.ts': file }, ['reach', 'pick', 'push', 'grasp']), [
    "x.ts:2: names 'pick': if (task.family === 'pick') score = grasp(states);",
    "x.ts:2: names 'grasp': if (task.family === 'pick') score = grasp(states);",
    "x.ts:4: names 'pick': import { x } from '../tasks/pick/graspScore.ts';",
  ]);
});

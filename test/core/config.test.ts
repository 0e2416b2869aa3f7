import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  ConfigError,
  describeConfigSchema,
  loadConfigFile,
  parseDottedOverrides,
  resolveConfig,
} from '../../src/core/config.ts';

const Schema = z
  .object({
    name: z.string().default('run').describe('Run name'),
    seed: z.number().int().default(0).describe('Random seed'),
    wm: z
      .object({
        members: z.number().int().min(1).default(5).describe('Ensemble size'),
        hidden: z.array(z.number().int().positive()).default([256, 256]).describe('Hidden layer widths'),
        act: z.enum(['relu', 'silu']).default('silu'),
      })
      .strict()
      .prefault({}),
    rl: z
      .object({
        groupSize: z.number().int().min(2).default(4).describe('GRPO group size'),
        lr: z.number().positive().default(1e-4),
        useKl: z.boolean().default(true),
        tag: z.string().optional(),
      })
      .strict()
      .prefault({}),
    optim: z
      .object({ lr: z.number(), eps: z.number() })
      .strict()
      .default({ lr: 1e-3, eps: 1e-8 })
      .describe('Optimizer'),
    extra: z.record(z.string(), z.number()).default({}),
  })
  .strict();

const DEFAULTS = {
  name: 'run',
  seed: 0,
  wm: { members: 5, hidden: [256, 256], act: 'silu' },
  rl: { groupSize: 4, lr: 1e-4, useKl: true },
  optim: { lr: 1e-3, eps: 1e-8 },
  extra: {},
};

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), 'wmrl-config-'));
}

function write(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function throwsConfig(fn: () => unknown, ...patterns: RegExp[]): ConfigError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ConfigError, `expected ConfigError, got ${String(caught)}`);
  for (const p of patterns) assert.match(caught.message, p);
  return caught;
}

test('defaults only', () => {
  assert.deepEqual(resolveConfig(Schema, {}), DEFAULTS);
  assert.deepEqual(resolveConfig(Schema, { files: [], overrides: {} }), DEFAULTS);
});

test('one file overlays the defaults (nested merge)', () => {
  const dir = tmp();
  const f = write(dir, 'a.yaml', 'name: quick\nwm:\n  members: 3\n');
  const cfg = resolveConfig(Schema, { files: [f] });
  assert.deepEqual(cfg, { ...DEFAULTS, name: 'quick', wm: { ...DEFAULTS.wm, members: 3 } });
});

test('two files: later wins, nested objects merge, arrays replace', () => {
  const dir = tmp();
  const a = write(dir, 'a.yaml', 'name: a\nwm:\n  members: 3\n  hidden: [64, 64, 64]\nrl:\n  groupSize: 8\n');
  const b = write(dir, 'b.yaml', 'name: b\nwm:\n  hidden: [32]\nrl:\n  lr: 0.001\n');
  const cfg = resolveConfig(Schema, { files: [a, b] });
  assert.equal(cfg.name, 'b');
  assert.deepEqual(cfg.wm, { members: 3, hidden: [32], act: 'silu' });
  assert.deepEqual(cfg.rl, { groupSize: 8, lr: 0.001, useKl: true });
});

test('a partial object overlays an object-valued schema default', () => {
  const dir = tmp();
  const f = write(dir, 'a.yaml', 'optim:\n  lr: 0.0003\n');
  assert.deepEqual(resolveConfig(Schema, { files: [f] }).optim, { lr: 3e-4, eps: 1e-8 });
});

test('base sits between the defaults and the files', () => {
  const dir = tmp();
  const f = write(dir, 'a.yaml', 'seed: 9\n');
  const cfg = resolveConfig(Schema, { base: { seed: 1, name: 'from-base' }, files: [f] });
  assert.equal(cfg.seed, 9);
  assert.equal(cfg.name, 'from-base');
});

test('extends chain: parents first, relative to the file, list form, this file wins', () => {
  const dir = tmp();
  write(dir, 'presets/base.yaml', 'name: base\nseed: 1\nwm:\n  members: 2\n  act: relu\n');
  write(dir, 'presets/small.yaml', 'extends: base.yaml\nwm:\n  members: 3\n  hidden: [16]\n');
  write(dir, 'presets/fast.yaml', 'rl:\n  groupSize: 16\nseed: 2\n');
  const top = write(dir, 'exp.yaml', 'extends: [presets/small.yaml, presets/fast.yaml]\nname: exp\n');
  assert.deepEqual(loadConfigFile(top), {
    name: 'exp',
    seed: 2,
    wm: { members: 3, act: 'relu', hidden: [16] },
    rl: { groupSize: 16 },
  });
  const cfg = resolveConfig(Schema, { files: [top] });
  assert.deepEqual(cfg.wm, { members: 3, hidden: [16], act: 'relu' });
  assert.equal(cfg.rl.groupSize, 16);
});

test('extends cycle is detected and the chain is shown', () => {
  const dir = tmp();
  const a = write(dir, 'a.yaml', 'extends: b.yaml\nseed: 1\n');
  write(dir, 'b.yaml', 'extends: c.yaml\n');
  write(dir, 'c.yaml', 'extends: a.yaml\n');
  throwsConfig(() => loadConfigFile(a), /extends cycle/, /a\.yaml -> .*b\.yaml -> .*c\.yaml -> .*a\.yaml/);
  const self = write(dir, 'self.yaml', 'extends: self.yaml\n');
  throwsConfig(() => resolveConfig(Schema, { files: [self] }), /extends cycle/);
  // A diamond is not a cycle.
  write(dir, 'd/root.yaml', 'seed: 5\n');
  write(dir, 'd/l.yaml', 'extends: root.yaml\n');
  write(dir, 'd/r.yaml', 'extends: root.yaml\n');
  const top = write(dir, 'd/top.yaml', 'extends: [l.yaml, r.yaml]\n');
  assert.equal(resolveConfig(Schema, { files: [top] }).seed, 5);
});

test('missing extended file names both files', () => {
  const dir = tmp();
  const a = write(dir, 'a.yaml', 'extends: nope.yaml\n');
  throwsConfig(() => loadConfigFile(a), /nope\.yaml/, /extended from .*a\.yaml/);
});

test('dotted overrides are parsed as YAML and win over files', () => {
  const dir = tmp();
  const f = write(dir, 'a.yaml', 'rl:\n  groupSize: 8\n');
  const cfg = resolveConfig(Schema, {
    files: [f],
    overrides: {
      'rl.groupSize': '12',
      'wm.hidden': '[1, 2]',
      'rl.useKl': 'false',
      'rl.lr': '3e-4',
      name: 'foo',
      'rl.tag': '2024', // string field: stays the string "2024"
      'extra.beta': '0.5', // records take any key
    },
  });
  assert.equal(cfg.rl.groupSize, 12);
  assert.deepEqual(cfg.wm.hidden, [1, 2]);
  assert.equal(cfg.rl.useKl, false);
  assert.equal(cfg.rl.lr, 3e-4);
  assert.equal(cfg.name, 'foo');
  assert.equal(cfg.rl.tag, '2024');
  assert.deepEqual(cfg.extra, { beta: 0.5 });
  // Array form, in order; a flow mapping merges like a file.
  const cfg2 = resolveConfig(Schema, { overrides: ['--wm={members: 7}', 'wm.act=relu'] });
  assert.deepEqual(cfg2.wm, { members: 7, hidden: [256, 256], act: 'relu' });
});

test('parseDottedOverrides picks dotted flags in both forms and leaves the rest', () => {
  const { overrides, rest } = parseDottedOverrides([
    'train',
    '--rl.groupSize=8',
    '--config',
    'configs/a.yaml',
    '--wm.hidden',
    '[1,2]',
    '--verbose',
    '--rl.lr',
    '-0.5',
    '--name=x',
    '--',
    '--wm.members=1',
  ]);
  assert.deepEqual(overrides, { 'rl.groupSize': '8', 'wm.hidden': '[1,2]', 'rl.lr': '-0.5' });
  assert.deepEqual(rest, ['train', '--config', 'configs/a.yaml', '--verbose', '--name=x', '--', '--wm.members=1']);
  throwsConfig(() => parseDottedOverrides(['--wm.members']), /--wm\.members: missing value/);
  throwsConfig(() => parseDottedOverrides(['--wm.members', '--verbose']), /missing value/);
  // Round trip into resolveConfig.
  const cfg = resolveConfig(Schema, { overrides: parseDottedOverrides(['--rl.groupSize', '6']).overrides });
  assert.equal(cfg.rl.groupSize, 6);
});

test('unknown key in a file is an error naming the file and key path', () => {
  const dir = tmp();
  const f = write(dir, 'a.yaml', 'wm:\n  memberz: 3\n');
  const err = throwsConfig(
    () => resolveConfig(Schema, { files: [f] }),
    new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: wm\\.memberz: `),
    /did you mean members/,
    /valid keys under wm: members, hidden, act/,
  );
  assert.equal(err.issues[0]?.source, f);
  assert.equal(err.issues[0]?.path, 'wm.memberz');
  // Unknown keys and bad values are reported together.
  const both = write(dir, 'both.yaml', 'wm:\n  memberz: 3\n  members: 0\n');
  const err2 = throwsConfig(
    () => resolveConfig(Schema, { files: [both] }),
    /2 config errors/,
    /both\.yaml: wm\.memberz: unrecognized/,
    /both\.yaml: wm\.members: Too small/,
  );
  assert.equal(err2.issues.length, 2);
  // Attributed to the file in an extends chain that holds the key.
  write(dir, 'parent.yaml', 'bogus: 1\n');
  const child = write(dir, 'child.yaml', 'extends: parent.yaml\nseed: 1\n');
  throwsConfig(
    () => resolveConfig(Schema, { files: [child] }),
    /parent\.yaml: bogus: unrecognized key "bogus"; valid top-level keys: name, seed/,
  );
});

test('unknown override path is an error naming it and listing valid keys', () => {
  throwsConfig(
    () => resolveConfig(Schema, { overrides: { 'rl.groupsize': '8' } }),
    /--rl\.groupsize=8: rl\.groupsize: unknown override path/,
    /valid keys under rl: groupSize, lr, useKl, tag/,
  );
  throwsConfig(
    () => resolveConfig(Schema, { overrides: { nope: '1' } }),
    /nope: .*valid top-level keys: name, seed, wm, rl, optim, extra/,
  );
  throwsConfig(
    () => resolveConfig(Schema, { overrides: { 'rl.groupSize.x': '1' } }),
    /rl\.groupSize\.x: unknown override path: rl\.groupSize is int, not an object/,
  );
  throwsConfig(
    () => resolveConfig(Schema, { overrides: ['--wm={bad: 1}'] }),
    /--wm=\{bad: 1\}: wm\.bad: unrecognized key/,
  );
  throwsConfig(
    () => resolveConfig(Schema, { overrides: { __proto__x: '1', 'constructor.x': '1' } }),
    /2 config errors/,
  );
});

test('bad value: error names the last source that set it, the path and the zod message', () => {
  const dir = tmp();
  const a = write(dir, 'a.yaml', 'wm:\n  members: 0\n');
  throwsConfig(
    () => resolveConfig(Schema, { files: [a] }),
    new RegExp(`^${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: wm\\.members: Too small: expected number to be >=1$`),
  );
  // A later file that set it takes the blame; an override takes it over both.
  const b = write(dir, 'b.yaml', 'wm:\n  members: -2\n');
  throwsConfig(() => resolveConfig(Schema, { files: [a, b] }), /b\.yaml: wm\.members: Too small/);
  throwsConfig(
    () => resolveConfig(Schema, { files: [a], overrides: { 'wm.members': '0.5' } }),
    /^--wm\.members=0\.5: wm\.members: .*int/,
  );
  // An array element error points at the source of the array.
  throwsConfig(
    () => resolveConfig(Schema, { files: [a], overrides: { 'wm.hidden': '[4, -1]' } }),
    /--wm\.hidden=\[4, -1\]: wm\.hidden\.1: /,
  );
  // Wrong type and enum.
  const c = write(dir, 'c.yaml', 'rl:\n  useKl: maybe\nwm:\n  act: tanh\n');
  const err = throwsConfig(
    () => resolveConfig(Schema, { files: [c] }),
    /2 config errors/,
    /c\.yaml: rl\.useKl: .*boolean/,
    /c\.yaml: wm\.act: .*relu/,
  );
  assert.equal(err.issues.length, 2);
});

test('invalid YAML and non-mapping files fail loudly', () => {
  const dir = tmp();
  const bad = write(dir, 'bad.yaml', 'wm: [1, 2\n');
  throwsConfig(() => loadConfigFile(bad), /bad\.yaml: invalid YAML/);
  const dup = write(dir, 'dup.yaml', 'seed: 1\nseed: 2\n');
  throwsConfig(() => loadConfigFile(dup), /dup\.yaml: invalid YAML/);
  const list = write(dir, 'list.yaml', '- 1\n- 2\n');
  throwsConfig(() => loadConfigFile(list), /list\.yaml: .*mapping/);
  throwsConfig(() => loadConfigFile(path.join(dir, 'missing.yaml')), /missing\.yaml: cannot read/);
  const empty = write(dir, 'empty.yaml', '# nothing here\n');
  assert.deepEqual(resolveConfig(Schema, { files: [empty] }), DEFAULTS);
});

test('describeConfigSchema lists fields with type, default and description', () => {
  const lines = describeConfigSchema(Schema);
  const row = (p: string) => {
    const line = lines.find((l) => l.startsWith(`${p} `));
    assert.ok(line, `no line for ${p} in\n${lines.join('\n')}`);
    return line.split(/\s{2,}/);
  };
  assert.deepEqual(row('wm.members'), ['wm.members', 'int', '5', 'Ensemble size']);
  assert.deepEqual(row('wm.hidden'), ['wm.hidden', 'int[]', '[256,256]', 'Hidden layer widths']);
  assert.deepEqual(row('rl.groupSize'), ['rl.groupSize', 'int', '4', 'GRPO group size']);
  assert.deepEqual(row('name'), ['name', 'string', '"run"', 'Run name']);
  assert.deepEqual(row('wm.act'), ['wm.act', 'enum(relu|silu)', '"silu"']);
  assert.deepEqual(row('rl.tag'), ['rl.tag', 'string', '-']);
  assert.deepEqual(row('optim'), ['optim', 'object', 'Optimizer']);
  assert.deepEqual(row('optim.lr'), ['optim.lr', 'number', '0.001']); // default inherited from the object default
  // Columns line up.
  const col = lines[0]!.indexOf(row(lines[0]!.split(/\s{2,}/)[0]!)[1]!);
  for (const l of lines) assert.equal(l.slice(col - 2, col), '  ');
});

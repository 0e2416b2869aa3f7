/**
 * Experiment-config loader. Presets are composed, not copied:
 *
 *   schema defaults ← `base` ← each YAML file in order ← dotted overrides
 *
 * Later sources win; nested objects merge key by key; arrays (and every other non-object value)
 * replace wholesale. A YAML file may say `extends: other.yaml` (or a list), resolved relative to
 * itself; the parents are loaded first and the file is overlaid on them.
 *
 * Everything is validated at load time with the caller's zod schema, and nothing falls back
 * silently: an unknown key in a file, an override path the schema does not have, a value of the
 * wrong type or out of range are all `ConfigError`s that name the source (file path or
 * `--override`), the dotted key path, and the zod message, e.g.
 *
 *   configs/quickstart.yaml: wm.members: Too small: expected number to be >=1
 *
 * Unknown keys are rejected in every object the schema does not explicitly open up with
 * `.loose()` / `.catchall()` (i.e. default "strip" objects are treated like `.strict()` ones).
 * Records accept any key. The top-level key `extends` is reserved in files.
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { editDistance } from './editDistance.ts';

export interface ConfigIssue {
  /** Where the offending value came from: a file path, `--a.b=value`, `base`, or `(not set)`. */
  source: string;
  /** Dotted key path, `(root)` for the whole config. */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(message: string, issues: readonly ConfigIssue[] = []) {
    super(message);
    this.name = 'ConfigError';
    this.issues = issues;
  }

  static fromIssues(issues: readonly ConfigIssue[]): ConfigError {
    const lines = issues.map((i) => `${i.source}: ${i.path}: ${i.message}`);
    const message = lines.length === 1 ? lines[0]! : `${lines.length} config errors:\n  ${lines.join('\n  ')}`;
    return new ConfigError(message, issues);
  }
}

export interface ConfigSources {
  /** YAML files, overlaid in order (later wins). */
  files?: string[];
  /** Dotted overrides, applied last in order: `{ 'rl.groupSize': '8' }` or `['rl.groupSize=8', '--wm.members=3']`. */
  overrides?: Record<string, string> | string[];
  /** A programmatic base (a plain object), overlaid on the schema defaults before the files. */
  base?: unknown;
}

/** One source's contribution, before merging. */
interface Layer {
  source: string;
  data: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Public API

/** Compose: schema defaults ← base ← each YAML file in order (later wins; nested objects merge,
 * arrays replace) ← dotted overrides; then validate with `schema`. Throws `ConfigError`. */
export function resolveConfig<S extends z.ZodType>(schema: S, sources: ConfigSources): z.infer<S> {
  const layers: Layer[] = [];
  if (sources.base !== undefined) {
    if (!isPlainObject(sources.base)) {
      throw new ConfigError(`base: (root): expected a plain object, got ${kindOf(sources.base)}`);
    }
    layers.push({ source: 'base', data: cloneDeep(sources.base) });
  }
  for (const file of sources.files ?? []) layers.push(...loadConfigLayers(file));

  // Unknown keys in base and files, attributed to the layer (file) that holds them.
  const keyIssues: ConfigIssue[] = [];
  for (const layer of layers) checkKeys(layer.data, expand(schema), [], layer.source, keyIssues);
  // Override paths are checked against the schema before anything is built from them; a bad
  // one stops here (validating without it would report misleading follow-on errors).
  const overrideIssues: ConfigIssue[] = [];
  layers.push(...overrideLayers(schema, sources.overrides ?? {}, overrideIssues));
  if (overrideIssues.length > 0) throw ConfigError.fromIssues([...keyIssues, ...overrideIssues]);

  let merged: unknown = {};
  for (const layer of layers) merged = deepMerge(merged, layer.data);
  merged = fillObjectDefaults(schema, merged);

  const result = schema.safeParse(merged);
  if (result.success && keyIssues.length === 0) return result.data;
  // Report unknown keys together with any bad values (zod's own unrecognized-key issues would
  // repeat ours, so they are dropped when we already have some).
  const zodIssues = result.success
    ? []
    : result.error.issues.filter((i) => keyIssues.length === 0 || i.code !== 'unrecognized_keys');
  throw ConfigError.fromIssues([...keyIssues, ...zodIssuesToConfigIssues(zodIssues, layers)]);
}

/**
 * Pick dotted flags out of argv: `--a.b.c=value` and `--a.b.c value` (the flag name must contain
 * a dot). Everything else, and everything after a bare `--`, is returned in `rest` in order.
 * A repeated flag keeps its last value (and its last position in application order).
 */
export function parseDottedOverrides(argv: string[]): { overrides: Record<string, string>; rest: string[] } {
  const overrides: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (!arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!name.includes('.')) {
      rest.push(arg);
      continue;
    }
    if (name.split('.').some((seg) => seg === '')) {
      throw new ConfigError(`${arg}: malformed override path "${name}" (empty segment)`);
    }
    let value: string;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        throw new ConfigError(`--${name}: missing value (use --${name}=VALUE or --${name} VALUE)`);
      }
      value = next;
      i++;
    }
    delete overrides[name];
    overrides[name] = value;
  }
  return { overrides, rest };
}

/** Load one YAML config file with its `extends` chain resolved (parents first, then this file
 * overlaid). Returns the composed, not-yet-validated data. Throws `ConfigError`. */
export function loadConfigFile(file: string): unknown {
  let merged: unknown = {};
  for (const layer of loadConfigLayers(file)) merged = deepMerge(merged, layer.data);
  return merged;
}

/**
 * One line per schema field, `path  type  default  description` in aligned columns, for a
 * `--help` listing. Descriptions come from zod's `.describe()` / `.meta({ description })`.
 * The default column shows the JSON default, `-` for an optional field without one, and
 * `(required)` otherwise. Nested objects are listed by their leaves (and get a line of their own
 * only when they carry a description).
 */
export function describeConfigSchema(schema: z.ZodType): string[] {
  const rows: [string, string, string, string][] = [];
  describeNode(schema, [], { has: false, value: undefined }, rows, new Set());
  const widths = [0, 1, 2].map((c) => Math.max(0, ...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c < 3 ? cell.padEnd(widths[c]!) : cell))
      .join('  ')
      .trimEnd(),
  );
}

// ---------------------------------------------------------------------------------------------
// Files

function loadConfigLayers(file: string, display = file, stack: string[] = [], chain: string[] = []): Layer[] {
  let resolved: string;
  let text: string;
  try {
    resolved = realpathSync(path.resolve(file));
    text = readFileSync(resolved, 'utf8');
  } catch (err) {
    const via = chain.length > 0 ? ` (extended from ${chain[chain.length - 1]})` : '';
    throw new ConfigError(`${display}: cannot read config file${via}: ${(err as Error).message}`);
  }
  const cycleAt = stack.indexOf(resolved);
  if (cycleAt >= 0) {
    const loop = [...chain.slice(cycleAt), display].join(' -> ');
    throw new ConfigError(`${display}: extends cycle: ${loop}`);
  }

  const data = parseYaml(text, display);
  if (data === null || data === undefined) return []; // an empty (or all-comment) file adds nothing
  if (!isPlainObject(data)) {
    throw new ConfigError(`${display}: (root): a config file must be a YAML mapping, got ${kindOf(data)}`);
  }

  const layers: Layer[] = [];
  if (Object.hasOwn(data, 'extends')) {
    const ext = data['extends'];
    const parents = typeof ext === 'string' ? [ext] : ext;
    if (!Array.isArray(parents) || parents.length === 0 || parents.some((p) => typeof p !== 'string' || p === '')) {
      throw new ConfigError(`${display}: extends: expected a file path or a non-empty list of file paths`);
    }
    for (const parent of parents as string[]) {
      const parentFile = path.resolve(path.dirname(resolved), parent);
      const parentDisplay = path.isAbsolute(parent) ? parent : path.join(path.dirname(display), parent);
      layers.push(...loadConfigLayers(parentFile, parentDisplay, [...stack, resolved], [...chain, display]));
    }
    delete data['extends'];
  }
  layers.push({ source: display, data });
  return layers;
}

function parseYaml(text: string, source: string): unknown {
  const doc = YAML.parseDocument(text, { merge: true, prettyErrors: true, uniqueKeys: true });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    throw new ConfigError(`${source}: invalid YAML: ${problems.map((p) => p.message).join('; ')}`);
  }
  return doc.toJS({ maxAliasCount: 1000 });
}

// ---------------------------------------------------------------------------------------------
// Overrides

function overrideLayers(
  schema: z.ZodType,
  overrides: Record<string, string> | string[],
  issues: ConfigIssue[],
): Layer[] {
  const entries: [string, string][] = [];
  if (Array.isArray(overrides)) {
    for (const item of overrides) {
      const eq = item.indexOf('=');
      if (eq < 0) {
        issues.push({ source: item, path: item.replace(/^--/, ''), message: 'override must be PATH=VALUE' });
        continue;
      }
      entries.push([item.slice(0, eq), item.slice(eq + 1)]);
    }
  } else {
    entries.push(...Object.entries(overrides));
  }

  const layers: Layer[] = [];
  for (const [rawKey, raw] of entries) {
    const key = rawKey.replace(/^--/, '');
    const source = `--${key}=${raw}`;
    const segs = key.split('.');
    if (segs.some((s) => s === '')) {
      issues.push({ source, path: key, message: 'malformed override path (empty segment)' });
      continue;
    }
    const leaf = walkOverridePath(schema, segs, source, issues);
    if (leaf === undefined) continue;

    let value: unknown;
    if (raw === '') {
      value = ''; // `--name=` means the empty string; write `--name=null` for null
    } else {
      const doc = YAML.parseDocument(raw, { prettyErrors: false, uniqueKeys: true });
      const problems = [...doc.errors, ...doc.warnings];
      if (problems.length > 0) {
        issues.push({
          source,
          path: key,
          message: `cannot parse value as YAML: ${problems.map((p) => p.message).join('; ')}`,
        });
        continue;
      }
      value = doc.toJS();
      // `--run.name=2024` for a string field means the string "2024", not a type error.
      if ((typeof value === 'number' || typeof value === 'boolean') && wantsRawString(leaf, value)) value = raw;
    }

    let data: Record<string, unknown> = {};
    setOwn(data, segs[segs.length - 1]!, value);
    for (let i = segs.length - 2; i >= 0; i--) {
      const outer: Record<string, unknown> = {};
      setOwn(outer, segs[i]!, data);
      data = outer;
    }
    // A flow-mapping value (`--wm={members: 3}`) is checked for unknown keys like a file.
    checkKeys(data, expand(schema), [], source, issues);
    layers.push({ source, data });
  }
  return layers;
}

/** Walks an override path through the schema; returns the leaf's candidate schemas (empty when
 * the schema is opaque there, e.g. `z.any()`), or undefined after recording an issue. */
function walkOverridePath(
  schema: z.ZodType,
  segs: string[],
  source: string,
  issues: ConfigIssue[],
): Node[] | undefined {
  let cands = expand(schema);
  for (let i = 0; i < segs.length; i++) {
    if (cands.some(isOpaque)) return [];
    const seg = segs[i]!;
    const here = segs.slice(0, i);
    const objs = cands.filter((c) => def(c).type === 'object');
    const recs = cands.filter((c) => def(c).type === 'record');
    if (objs.length === 0 && recs.length === 0) {
      const what = cands.map(typeName).join(' | ') || 'nothing';
      const hint = cands.some((c) => ['array', 'tuple'].includes(def(c).type))
        ? ` (set the whole value, e.g. --${here.join('.')}=[...])`
        : '';
      issues.push({
        source,
        path: segs.join('.'),
        message: `unknown override path: ${here.join('.')} is ${what}, not an object${hint}`,
      });
      return undefined;
    }
    const next = childCandidates(objs, recs, seg);
    if (next === undefined) {
      issues.push({
        source,
        path: segs.join('.'),
        message: `unknown override path; ${validKeysText(objs, here, seg)}`,
      });
      return undefined;
    }
    cands = next;
  }
  return cands;
}

function wantsRawString(leaf: Node[], value: number | boolean): boolean {
  if (leaf.length === 0 || leaf.some(isOpaque)) return false;
  const accepts = leaf.some((c) => {
    const d = def(c);
    switch (d.type) {
      case 'number':
      case 'int':
      case 'nan':
        return typeof value === 'number';
      case 'boolean':
        return typeof value === 'boolean';
      case 'literal':
        return (d['values'] as unknown[]).includes(value);
      case 'enum':
        return Object.values(d['entries'] as object).includes(value);
      default:
        return false;
    }
  });
  return !accepts && leaf.some((c) => ['string', 'template_literal'].includes(def(c).type));
}

// ---------------------------------------------------------------------------------------------
// Schema introspection (zod v4 internals: `schema._zod.def`)

type Node = z.ZodType;
interface Def {
  type: string;
  [k: string]: unknown;
}

function def(s: Node): Def {
  return (s as unknown as { _zod: { def: Def } })._zod.def;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);
const KNOWN_CLOSED = new Set([
  'string',
  'number',
  'int',
  'boolean',
  'bigint',
  'symbol',
  'null',
  'undefined',
  'void',
  'never',
  'date',
  'object',
  'record',
  'array',
  'tuple',
  'enum',
  'literal',
  'nan',
  'template_literal',
  'file',
  'map',
  'set',
]);

/** Strip wrappers, follow lazy/pipe inputs, and split unions/intersections into their members. */
function expand(s: Node, out: Node[] = [], depth = 0): Node[] {
  const d = def(s);
  if (depth > 64) {
    out.push(s);
    return out;
  }
  if (WRAPPERS.has(d.type)) return expand(d['innerType'] as Node, out, depth + 1);
  switch (d.type) {
    case 'lazy':
      return expand((d['getter'] as () => Node)(), out, depth + 1);
    case 'pipe':
      return expand(d['in'] as Node, out, depth + 1);
    case 'union':
      for (const o of d['options'] as Node[]) expand(o, out, depth + 1);
      return out;
    case 'intersection':
      expand(d['left'] as Node, out, depth + 1);
      return expand(d['right'] as Node, out, depth + 1);
    default:
      out.push(s);
      return out;
  }
}

/** A schema whose accepted input shape we cannot see (any, unknown, custom, transform, ...). */
function isOpaque(s: Node): boolean {
  return !KNOWN_CLOSED.has(def(s).type);
}

function shapeOf(s: Node): Record<string, Node> {
  return def(s)['shape'] as Record<string, Node>;
}

/** Catchall of an object that accepts extra keys (`.loose()` / `.catchall(x)`), else undefined. */
function openCatchall(s: Node): Node | undefined {
  const c = def(s)['catchall'] as Node | undefined;
  return c !== undefined && def(c).type !== 'never' ? c : undefined;
}

/** Candidate schemas for `key` under objects/records, or undefined when no candidate has it. */
function childCandidates(objs: Node[], recs: Node[], key: string): Node[] | undefined {
  const next: Node[] = [];
  let allowed = recs.length > 0;
  for (const o of objs) {
    const shape = shapeOf(o);
    if (Object.hasOwn(shape, key)) {
      expand(shape[key]!, next);
      allowed = true;
    } else {
      const extra = openCatchall(o);
      if (extra !== undefined) {
        expand(extra, next);
        allowed = true;
      }
    }
  }
  for (const r of recs) expand(def(r)['valueType'] as Node, next);
  return allowed ? next : undefined;
}

function validKeysText(objs: Node[], here: string[], key: string): string {
  const keys = [...new Set(objs.flatMap((o) => Object.keys(shapeOf(o))))];
  const where = here.length === 0 ? 'valid top-level keys' : `valid keys under ${here.join('.')}`;
  const close = keys.filter(
    (k) => editDistance(k.toLowerCase(), key.toLowerCase()) <= Math.max(1, Math.floor(key.length / 4)),
  );
  const guess = close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : '';
  return `unrecognized key "${key}"${guess}; ${where}: ${keys.join(', ') || '(none)'}`;
}

/** Records every key of `value` the schema does not know, with valid alternatives. */
function checkKeys(value: unknown, cands: Node[], at: string[], source: string, issues: ConfigIssue[]): void {
  if (cands.length === 0 || cands.some(isOpaque)) return;
  if (isPlainObject(value)) {
    const objs = cands.filter((c) => def(c).type === 'object');
    const recs = cands.filter((c) => def(c).type === 'record');
    if (objs.length === 0 && recs.length === 0) return; // wrong type: zod reports it
    for (const key of Object.keys(value)) {
      const next = childCandidates(objs, recs, key);
      if (next === undefined) {
        issues.push({ source, path: [...at, key].join('.'), message: validKeysText(objs, at, key) });
      } else {
        checkKeys(value[key], next, [...at, key], source, issues);
      }
    }
  } else if (Array.isArray(value)) {
    value.forEach((el, i) => {
      const next: Node[] = [];
      for (const c of cands) {
        const d = def(c);
        if (d.type === 'array') expand(d['element'] as Node, next);
        if (d.type === 'tuple') {
          const item = (d['items'] as Node[])[i] ?? (d['rest'] as Node | null);
          if (item) expand(item, next);
        }
      }
      checkKeys(el, next, [...at, String(i)], source, issues);
    });
  }
}

/**
 * Where a source gives a partial object for a field whose schema default is an object, fill the
 * missing keys from that default (so `optim: {lr: 3e-4}` overlays `.default({lr: 1e-3, eps: 1e-8})`
 * instead of replacing it). Fields no source touched are left to zod.
 */
function fillObjectDefaults(s: Node, value: unknown, depth = 0): unknown {
  if (!isPlainObject(value) || depth > 64) return value;
  let cur = s;
  let out: Record<string, unknown> = value;
  for (;;) {
    const d = def(cur);
    if (d.type === 'default' || d.type === 'prefault') {
      const dv = d['defaultValue'];
      if (isPlainObject(dv)) out = deepMerge(cloneDeep(dv), out) as Record<string, unknown>;
      cur = d['innerType'] as Node;
    } else if (WRAPPERS.has(d.type)) {
      cur = d['innerType'] as Node;
    } else if (d.type === 'lazy') {
      cur = (d['getter'] as () => Node)();
    } else if (d.type === 'pipe') {
      cur = d['in'] as Node;
    } else {
      break;
    }
  }
  const d = def(cur);
  if (d.type === 'object') {
    const shape = shapeOf(cur);
    for (const key of Object.keys(out)) {
      if (Object.hasOwn(shape, key)) setOwn(out, key, fillObjectDefaults(shape[key]!, out[key], depth + 1));
    }
  } else if (d.type === 'record') {
    for (const key of Object.keys(out))
      setOwn(out, key, fillObjectDefaults(d['valueType'] as Node, out[key], depth + 1));
  }
  return out;
}

function typeName(s: Node, depth = 0): string {
  if (depth > 8) return '...';
  const d = def(s);
  switch (d.type) {
    case 'number': {
      const checks = (d['checks'] as { _zod: { def: { format?: string } } }[] | undefined) ?? [];
      const isInt =
        String(d['format'] ?? '').includes('int') ||
        checks.some((c) => String(c._zod.def.format ?? '').includes('int'));
      return isInt ? 'int' : 'number';
    }
    case 'enum':
      return `enum(${Object.values(d['entries'] as object).join('|')})`;
    case 'literal':
      return (d['values'] as unknown[]).map((v) => JSON.stringify(v)).join('|');
    case 'array':
      return `${typeName(d['element'] as Node, depth + 1)}[]`;
    case 'tuple':
      return `[${(d['items'] as Node[]).map((i) => typeName(i, depth + 1)).join(', ')}]`;
    case 'record':
      return `record<${typeName(d['keyType'] as Node, depth + 1)}, ${typeName(d['valueType'] as Node, depth + 1)}>`;
    case 'union':
      return (d['options'] as Node[]).map((o) => typeName(o, depth + 1)).join(' | ');
    case 'intersection':
      return `${typeName(d['left'] as Node, depth + 1)} & ${typeName(d['right'] as Node, depth + 1)}`;
    case 'nullable':
      return `${typeName(d['innerType'] as Node, depth + 1)} | null`;
    case 'pipe': // a preprocess pipe's input is opaque, so show what it produces
      return typeName(d[def(d['in'] as Node).type === 'transform' ? 'out' : 'in'] as Node, depth + 1);
    default:
      if (WRAPPERS.has(d.type)) return typeName(d['innerType'] as Node, depth + 1);
      return d.type;
  }
}

function describeNode(
  s: Node,
  at: string[],
  inherited: { has: boolean; value: unknown },
  rows: [string, string, string, string][],
  seen: Set<Node>,
): void {
  let cur = s;
  let description: string | undefined;
  let dflt = inherited;
  let ownDefault = false;
  let optional = false;
  let nullable = false;
  for (let guard = 0; guard < 64; guard++) {
    description ??= z.globalRegistry.get(cur)?.description;
    const d = def(cur);
    if ((d.type === 'default' || d.type === 'prefault') && !ownDefault) {
      dflt = { has: true, value: d['defaultValue'] };
      ownDefault = true;
    }
    if (d.type === 'optional') optional = true;
    if (d.type === 'nullable') nullable = true;
    if (WRAPPERS.has(d.type)) cur = d['innerType'] as Node;
    else if (d.type === 'pipe') cur = d['in'] as Node;
    else if (d.type === 'lazy' && !seen.has(cur)) {
      seen = new Set(seen).add(cur);
      cur = (d['getter'] as () => Node)();
    } else break;
  }
  const name = at.length === 0 ? '(root)' : at.join('.');
  const d = def(cur);
  if (d.type === 'object' && !seen.has(cur)) {
    if (at.length > 0 && description) rows.push([name, nullable ? 'object | null' : 'object', '', description]);
    const inner = new Set(seen).add(cur);
    const shape = shapeOf(cur);
    for (const key of Object.keys(shape)) {
      const parent = dflt.has && isPlainObject(dflt.value) ? dflt.value : undefined;
      const child =
        parent !== undefined && Object.hasOwn(parent, key)
          ? { has: true, value: parent[key] }
          : { has: false, value: undefined };
      describeNode(shape[key]!, [...at, key], child, rows, inner);
    }
    return;
  }
  const type = d.type === 'lazy' ? '(recursive)' : typeName(cur) + (nullable ? ' | null' : '');
  const shown = dflt.has ? (JSON.stringify(dflt.value) ?? String(dflt.value)) : optional ? '-' : '(required)';
  rows.push([name, type, shown, description ?? '']);
}

// ---------------------------------------------------------------------------------------------
// Attribution of zod issues to sources

function zodIssuesToConfigIssues(zodIssues: readonly z.core.$ZodIssue[], layers: Layer[]): ConfigIssue[] {
  const touched = layers.map((l) => leafPaths(l.data));
  const attribute = (p: string[]): string => {
    for (let i = layers.length - 1; i >= 0; i--) {
      if (touched[i]!.some((leaf) => isPrefix(leaf, p) || isPrefix(p, leaf))) return layers[i]!.source;
    }
    return '(not set)';
  };
  const out: ConfigIssue[] = [];
  for (const issue of zodIssues) {
    const p = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ source: attribute([...p, key]), path: [...p, key].join('.'), message: `Unrecognized key "${key}"` });
      continue;
    }
    out.push({ source: attribute(p), path: p.length === 0 ? '(root)' : p.join('.'), message: issue.message });
  }
  return out;
}

function leafPaths(value: unknown, at: string[] = [], out: string[][] = []): string[][] {
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    for (const key of Object.keys(value)) leafPaths(value[key], [...at, key], out);
  } else {
    out.push(at);
  }
  return out;
}

function isPrefix(a: string[], b: string[]): boolean {
  return a.length <= b.length && a.every((seg, i) => seg === b[i]);
}

// ---------------------------------------------------------------------------------------------
// Plain-data helpers

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v;
}

/** Own-property assignment that is safe for keys like `__proto__`. */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

function cloneDeep<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneDeep) as T;
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) setOwn(out, key, cloneDeep(v[key]));
    return out as T;
  }
  return v;
}

/** `over` on top of `under`: plain objects merge recursively, anything else replaces. Pure. */
function deepMerge(under: unknown, over: unknown): unknown {
  if (!isPlainObject(under) || !isPlainObject(over)) return cloneDeep(over);
  const out = cloneDeep(under);
  for (const key of Object.keys(over)) {
    setOwn(out, key, Object.hasOwn(out, key) ? deepMerge(out[key], over[key]) : cloneDeep(over[key]));
  }
  return out;
}

/**
 * The files a robot model reads, found the way MuJoCo's compiler finds them, so that all of
 * them can be written into MuJoCo's (WASM) virtual file system before it compiles the model:
 *
 * - `<include file>`: relative to the main file's folder, else to the including file's folder;
 * - `<mesh|hfield|skin file>` and `<flexcomp file>`: `meshdir` (else `assetdir`) joined to the
 *   file, relative to the main file's folder, else the file beside the element's own file;
 * - `<texture file|fileright|…>`: the same with `texturedir` (else `assetdir`);
 * - `<compiler>` settings are global: the last one given wins, wherever it appears;
 *   `strippath` drops the folders of every asset file name (on by default for URDF);
 * - `<model file>` (a sub-model for `<attach>`): a model of its own, from its own folder.
 *
 * A URDF reads its `<mesh filename>`s, with the compiler settings of its `<mujoco>` element.
 * (These rules were checked against the `mujoco` npm build's loader; see test/core/modelFiles.test.ts.)
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

export type ModelFormat = 'mjcf' | 'urdf';

export interface ModelFiles {
  format: ModelFormat;
  /** Absolute path of the file MuJoCo loads (the MJCF, or the URDF). */
  main: string;
  /** Every file the model reads, by absolute path: the main file, included MJCF, meshes, textures. */
  files: ReadonlyMap<string, Uint8Array>;
  /** The main file's text and every included MJCF's, in include order (names are checked over it). */
  xml: string;
}

/** A file the model reads that is missing or unreadable: where it is asked for, what is wrong, how to fix it. */
export class ModelFileError extends Error {
  override name = 'ModelFileError';
  /** The element asking for the file (`path:line`), when there is one. */
  readonly where: string | undefined;
  readonly what: string;
  /** What to change: where to put the file, or what to write instead. */
  readonly fix: string;

  constructor(where: string | undefined, what: string, fix: string) {
    super(where ? `${where}: ${what}` : what);
    this.where = where;
    this.what = what;
    this.fix = fix;
  }
}

/** An element of an XML file: its name, attributes and where it is. */
interface Tag {
  name: string;
  attrs: Map<string, string>;
  file: string;
  line: number;
}

const TEXTURE_FILE_ATTRS = ['file', 'fileright', 'fileleft', 'fileup', 'filedown', 'filefront', 'fileback'];
const MESH_DIR_ELEMENTS = new Set(['mesh', 'hfield', 'skin', 'flexcomp']);
const MAX_INCLUDE_DEPTH = 32;

/**
 * Collect the files of the model whose main file is `mainPath` (absolute or relative to the working folder).
 * The first missing or unreadable file throws a ModelFileError; given `problems`, each one is added there
 * instead and the rest are still collected (what `wmrl robot check` lists at once).
 */
export function collectModelFiles(mainPath: string, format: ModelFormat, problems?: ModelFileError[]): ModelFiles {
  const main = resolve(mainPath);
  const files = new Map<string, Uint8Array>();
  const texts: string[] = [];
  const attempt = (read: () => void) => {
    try {
      read();
    } catch (err) {
      if (!(problems && err instanceof ModelFileError)) throw err;
      problems.push(err);
    }
  };
  if (format === 'urdf') collectUrdf(main, files, texts, attempt);
  else collectMjcf(main, files, texts, attempt, problems);
  return { format, main, files, xml: texts.join('\n') };
}

/** Runs one file's reading; with a problem list, a ModelFileError goes there and collection goes on. */
type Attempt = (read: () => void) => void;

function collectMjcf(
  main: string,
  files: Map<string, Uint8Array>,
  texts: string[],
  attempt: Attempt,
  problems?: ModelFileError[],
): void {
  const mainDir = dirname(main);
  const tags: Tag[] = [];
  const visit = (file: string, depth: number, includedBy?: Tag) => {
    if (depth > MAX_INCLUDE_DEPTH)
      throw new ModelFileError(
        where(includedBy!),
        'includes nest deeper than 32',
        'include the files from fewer levels',
      );
    const text = readText(file, includedBy);
    files.set(file, new TextEncoder().encode(text));
    texts.push(text);
    for (const tag of scanTags(text, file)) {
      if (tag.name === 'include') {
        attempt(() => {
          const name = required(tag, 'file');
          visit(findFile(tag, 'file', name, [mainDir, dirname(file)]), depth + 1, tag);
        });
      } else tags.push(tag);
    }
  };
  visit(main, 0);
  const compiler = compilerSettings(tags, false);
  for (const tag of tags) {
    if (tag.name === 'model' && tag.attrs.has('file')) {
      // A sub-model (MJCF <model file> for attach) has its own folder and compiler settings.
      attempt(() => {
        const sub = collectModelFiles(
          findFile(tag, 'file', tag.attrs.get('file')!, [mainDir, dirname(tag.file)]),
          'mjcf',
          problems,
        );
        for (const [path, bytes] of sub.files) files.set(path, bytes);
        texts.push(sub.xml);
      });
      continue;
    }
    const dir = MESH_DIR_ELEMENTS.has(tag.name)
      ? compiler.meshdir
      : tag.name === 'texture'
        ? compiler.texturedir
        : undefined;
    if (dir === undefined) continue;
    for (const attr of tag.name === 'texture' ? TEXTURE_FILE_ATTRS : ['file']) {
      const value = tag.attrs.get(attr);
      if (value === undefined || value === '') continue;
      attempt(() => addAsset(files, tag, attr, compiler.strippath, [join(mainDir, dir), dirname(tag.file)]));
    }
  }
}

function collectUrdf(main: string, files: Map<string, Uint8Array>, texts: string[], attempt: Attempt): void {
  const text = readText(main);
  files.set(main, new TextEncoder().encode(text));
  texts.push(text);
  const tags = scanTags(text, main);
  // The <mujoco><compiler> extension element; URDF strips mesh paths unless it says otherwise.
  const compiler = compilerSettings(
    tags.filter((t) => t.name === 'compiler'),
    true,
  );
  for (const tag of tags) {
    if (tag.name !== 'mesh') continue;
    attempt(() => {
      const value = required(tag, 'filename');
      if (!compiler.strippath && /^[a-z]+:\/\//i.test(value))
        throw new ModelFileError(
          where(tag),
          `<mesh filename="${value}">: MuJoCo does not resolve URIs`,
          'keep strippath on (the URDF default) and put the meshes in meshdir',
        );
      const dirs = [join(dirname(main), compiler.meshdir), dirname(main)];
      const stripped = basename(value.replace(/\\/g, '/'));
      const asWritten = resolve(dirname(main), value);
      if (compiler.strippath && stripped !== value && !dirs.some((d) => existsSync(resolve(d, stripped))))
        if (existsSync(asWritten))
          throw new ModelFileError(
            where(tag),
            `<mesh filename="${value}">: MuJoCo strips the folders from a URDF's mesh paths (strippath is on by ` +
              `default), so it looks for ${stripped} in ${[...new Set(dirs)].join(', ')}; the file is at ${asWritten}`,
            `add <mujoco><compiler meshdir="${dirname(value)}"/></mujoco> inside <robot>`,
          );
      addAsset(files, tag, 'filename', compiler.strippath, dirs);
    });
  }
}

interface CompilerSettings {
  meshdir: string;
  texturedir: string;
  strippath: boolean;
}

function compilerSettings(tags: Tag[], strippathDefault: boolean): CompilerSettings {
  let meshdir: string | undefined;
  let texturedir: string | undefined;
  let assetdir: string | undefined;
  let strippath = strippathDefault;
  for (const tag of tags) {
    if (tag.name !== 'compiler') continue;
    meshdir = tag.attrs.get('meshdir') ?? meshdir;
    texturedir = tag.attrs.get('texturedir') ?? texturedir;
    assetdir = tag.attrs.get('assetdir') ?? assetdir;
    const strip = tag.attrs.get('strippath');
    if (strip !== undefined) strippath = strip === 'true';
  }
  return { meshdir: meshdir ?? assetdir ?? '', texturedir: texturedir ?? assetdir ?? '', strippath };
}

/** Add the file `tag` names in `attr`, looked for in `dirs` in order (the first one found is what MuJoCo reads). */
function addAsset(files: Map<string, Uint8Array>, tag: Tag, attr: string, strip: boolean, dirs: string[]): void {
  const value = tag.attrs.get(attr)!;
  const name = strip ? basename(value.replace(/\\/g, '/')) : value;
  const path = findFile(tag, attr, name, dirs, value);
  if (files.has(path)) return;
  const bytes = readFileSync(path);
  if (/\.stl$/i.test(path) && !isBinaryStl(bytes))
    throw new ModelFileError(
      where(tag),
      `${path} is an ASCII STL; MuJoCo reads binary STL only`,
      'convert it to binary STL, e.g. with meshlab or trimesh',
    );
  files.set(path, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

function findFile(tag: Tag, attr: string, name: string, dirs: string[], shown = name): string {
  const candidates = isAbsolute(name) ? [name] : dirs.map((d) => resolve(d, name));
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
  throw new ModelFileError(
    where(tag),
    `<${tag.name} ${attr}="${shown}">: file not found (looked at ${[...new Set(candidates)].join(', ')})`,
    `put the file at ${candidates[0]}, or write the right ${attr}= in ${basename(tag.file)} line ${tag.line}`,
  );
}

function readText(file: string, includedBy?: Tag): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ModelFileError(
      includedBy && where(includedBy),
      `${includedBy ? '<include file>: ' : ''}cannot read ${file}: ${(err as Error).message}`,
      'make the file readable, or name another one',
    );
  }
}

function required(tag: Tag, attr: string): string {
  const value = tag.attrs.get(attr);
  if (value === undefined || value === '')
    throw new ModelFileError(where(tag), `<${tag.name}> has no ${attr}`, `give it ${attr}="…", or remove the element`);
  return value;
}

function where(tag: Tag): string {
  return `${tag.file}:${tag.line}`;
}

/** Binary STL: an 80-byte header, a triangle count, 50 bytes per triangle (an ASCII STL does not add up). */
function isBinaryStl(bytes: Uint8Array): boolean {
  if (bytes.length < 84) return false;
  const count = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
  return bytes.length === 84 + 50 * count;
}

/**
 * The start tags of an XML text with their attributes and line numbers. Comments, processing
 * instructions and CDATA are skipped; enough XML for model files, which carry no entities in names.
 */
export function scanTags(text: string, file: string): Tag[] {
  const blanked = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>/g, (m) =>
    m.replace(/[^\n]/g, ' '),
  );
  const tags: Tag[] = [];
  const tagRe = /<([A-Za-z_][\w.-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/g;
  const attrRe = /([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  let line = 1;
  let last = 0;
  for (const m of blanked.matchAll(tagRe)) {
    for (let i = last; i < m.index; i++) if (blanked.charCodeAt(i) === 10) line++;
    last = m.index;
    const attrs = new Map<string, string>();
    for (const a of m[2]!.matchAll(attrRe)) attrs.set(a[1]!, unescapeXml(a[2] ?? a[3] ?? ''));
    tags.push({ name: m[1]!, attrs, file, line });
  }
  return tags;
}

function unescapeXml(s: string): string {
  return s.replace(
    /&(lt|gt|amp|quot|apos);/g,
    (_, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e]!,
  );
}

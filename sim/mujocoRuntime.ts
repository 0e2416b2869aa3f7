/**
 * One MuJoCo WASM module per process, loaded on first use. The module owns a virtual file
 * system (emscripten's in-memory FS) where every file a model reads is written before MuJoCo
 * compiles it: its loader opens includes, meshes and textures there, never on the host disk.
 */
import type { MjModel } from 'mujoco';
import loadMujoco, { type MainModule } from 'mujoco';

export type Mujoco = MainModule;

let loading: Promise<Mujoco> | undefined;

export function getMujoco(): Promise<Mujoco> {
  loading ??= loadMujoco();
  return loading;
}

/** A tiny model kept for wasmHeapBytes: its arrays are views of the module's memory. */
let heapProbe: MjModel | undefined;

/**
 * Bytes of the module's WebAssembly memory now: it grows as MuJoCo allocates and never shrinks, up to the 2 GB
 * wasm32 limit. The build exports neither HEAP8 nor wasmMemory (reading either aborts the module), but every array
 * MuJoCo hands out is a view of that memory, made afresh on each read, so a kept model's array gives its buffer.
 */
export function wasmHeapBytes(mj: Mujoco): number {
  if (!heapProbe) {
    const path = '/wmrl-heap-probe.xml';
    mj.FS.writeFile(path, '<mujoco/>');
    heapProbe = compileModel(mj, path);
  }
  return (heapProbe.body_pos as Float64Array).buffer.byteLength;
}

/** The bytes each virtual-file path last received, so unchanged files (meshes) are not copied again. */
const written = new Map<string, Uint8Array>();

/**
 * The virtual-file path of a host path: the same absolute path (so relative and absolute
 * references inside model files resolve as they do on disk), with `\` as `/` and no drive colon.
 */
export function vfsPath(hostPath: string): string {
  const posix = hostPath.replace(/\\/g, '/').replace(/^([A-Za-z]):/, '/$1');
  return posix.startsWith('/') ? posix : `/${posix}`;
}

/** Write files (by host path) into the virtual file system at their vfsPath. */
export function writeVirtualFiles(mj: Mujoco, files: Iterable<[string, Uint8Array | string]>): void {
  for (const [hostPath, data] of files) {
    const path = vfsPath(hostPath);
    if (typeof data !== 'string' && written.get(path) === data) continue;
    mj.FS.mkdirTree(path.slice(0, path.lastIndexOf('/')) || '/', 0o777);
    mj.FS.writeFile(path, data);
    if (typeof data === 'string') written.delete(path);
    else written.set(path, data);
  }
}

/** Compile the MJCF (or URDF) at a virtual-file path; errors carry MuJoCo's message. */
export function compileModel(mj: Mujoco, path: string): MjModel {
  try {
    return mj.MjModel.mj_loadXML(path);
  } catch (err) {
    throw new Error(`MuJoCo could not compile ${path}: ${describeWasmError(mj, err)}`);
  }
}

/** Embind throws C++ exceptions as numbers; turn them into their message where possible. */
export function describeWasmError(mj: Mujoco, err: unknown): string {
  if (err instanceof Error) return err.message;
  const getMessage = (mj as unknown as { getExceptionMessage?: (e: unknown) => [string, string] }).getExceptionMessage;
  if (typeof err === 'number' && getMessage) {
    try {
      return getMessage(err).join(': ');
    } catch {
      /* fall through */
    }
  }
  return String(err);
}

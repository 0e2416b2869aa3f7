/**
 * One MuJoCo WASM module per process, loaded on first use. The module owns a virtual file
 * system where scene files are written before compiling (MJCF `<include>` reads from it).
 */
import loadMujoco, { type MainModule } from 'mujoco';

export type Mujoco = MainModule;

let loading: Promise<Mujoco> | undefined;

export function getMujoco(): Promise<Mujoco> {
  loading ??= loadMujoco();
  return loading;
}

/** Compile an MJCF scene whose files are given by name; names are relative to one folder. */
export function compileMjcf(mj: Mujoco, folder: string, files: Record<string, string>, main: string) {
  mj.FS.mkdirTree(folder, 0o777);
  for (const [name, text] of Object.entries(files)) mj.FS.writeFile(`${folder}/${name}`, text);
  try {
    return mj.MjModel.mj_loadXML(`${folder}/${main}`);
  } catch (err) {
    throw new Error(`MuJoCo could not compile ${folder}/${main}: ${describeWasmError(mj, err)}`);
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

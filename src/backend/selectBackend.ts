/**
 * Picks and activates the TensorFlow.js backend for a run.
 *
 * Backends, fastest first:
 *   - `tensorflow-gpu`: native libtensorflow with CUDA, from the optional peer dependency
 *     `@tensorflow/tfjs-node-gpu`.
 *   - `tensorflow`: native libtensorflow on the CPU, from the optional peer dependency
 *     `@tensorflow/tfjs-node`.
 *     Both packages register a backend named 'tensorflow' on the shared `@tensorflow/tfjs`
 *     engine. Neither is a hard dependency: their install step downloads libtensorflow, which
 *     needs internet access (and CUDA for the GPU build).
 *   - `wasm`: `@tensorflow/tfjs-backend-wasm` (pure WebAssembly, always installed). In Node
 *     its Emscripten loader finds the `.wasm` binaries next to `dist/tf-backend-wasm.node.js`
 *     by itself (checked from a foreign working directory), so no `setWasmPaths` call is made.
 *   - `cpu`: the plain-JS backend bundled with `@tensorflow/tfjs`; slowest, but has the most
 *     kernels of the pure-JS backends.
 *
 * `auto` tries them in that order (skipping native packages that are not installed) and takes
 * the first one that has every kernel in `requiredKernels`.
 *
 * Kernels the wasm backend lacks (tfjs 4.22.0, checked with `tf.getKernel(name, 'wasm')`):
 * of the kernels a world model is likely to need, `Conv2DBackpropFilter` (so no gradient
 * w.r.t. conv weights: conv layers cannot be trained on wasm), `UnsortedSegmentSum` (used by
 * the gradient of `gather`, i.e. embedding training) and `Einsum`. The cpu backend has all
 * three. The full list of kernels cpu has and wasm lacks: Complex, ComplexAbs, Conv2DBackpropFilter,
 * DepthwiseConv2dNativeBackpropFilter, DepthwiseConv2dNativeBackpropInput, Draw, Einsum, FFT,
 * IFFT, Imag, RaggedGather, RaggedRange, RaggedTensorToTensor, Real, StaticRegexReplace,
 * UnsortedSegmentSum (wasm alone has LogicalXor). Training code should pass the kernels its
 * gradients need as `requiredKernels` so that `auto` skips wasm, rather than failing mid-run
 * with "kernel not registered".
 * (`Pad` and `LogSoftmax` are not kernel names at all: the pad kernel is `PadV2`, and
 * `logSoftmax` is composed from other ops; both backends support them.)
 */
import * as tf from '@tensorflow/tfjs';
// Registers the 'wasm' backend and its kernels on the shared engine.
import '@tensorflow/tfjs-backend-wasm';
import { useFasterWasmKernels } from './wasmKernels.ts';

export type BackendName = 'auto' | 'tensorflow-gpu' | 'tensorflow' | 'wasm' | 'cpu';

export const BACKEND_NAMES: readonly BackendName[] = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'];

export interface SelectBackendOptions {
  /**
   * Kernel names (e.g. 'Conv2DBackpropFilter') the run will
   * dispatch; a backend lacking any is skipped (auto) or rejected.
   */
  requiredKernels?: string[];
  /** Receives the one-line `backend: <name> (<reason>)` report; defaults to console.error. */
  log?: (line: string) => void;
}

export interface SelectedBackend {
  /** The tfjs backend now active: 'tensorflow', 'wasm' or 'cpu'. */
  backend: string;
  requested: BackendName;
  reason: string;
}

/** A requested backend cannot be used here (its package is missing or failed to load). */
export class BackendUnavailableError extends Error {
  readonly backendName: BackendName;
  constructor(backendName: BackendName, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackendUnavailableError';
    this.backendName = backendName;
  }
}

interface NativeSpec {
  name: 'tensorflow-gpu' | 'tensorflow';
  pkg: string;
}

const NATIVE: Record<'tensorflow-gpu' | 'tensorflow', NativeSpec> = {
  'tensorflow-gpu': { name: 'tensorflow-gpu', pkg: '@tensorflow/tfjs-node-gpu' },
  tensorflow: { name: 'tensorflow', pkg: '@tensorflow/tfjs-node' },
};

/** The tfjs backend name both native packages register. */
const NATIVE_BACKEND = 'tensorflow';

/** Of `kernels`, those with no implementation registered for `backend` (all of them if the backend is unknown). */
export function kernelsMissing(backend: string, kernels: string[]): string[] {
  return kernels.filter((k) => tf.getKernel(k, backend) == null);
}

export function isBackendName(s: string): s is BackendName {
  return (BACKEND_NAMES as readonly string[]).includes(s);
}

type NativeLoad = { ok: true } | { ok: false; notInstalled: boolean; error: unknown };

async function loadNative(spec: NativeSpec): Promise<NativeLoad> {
  // A variable specifier keeps tsc from requiring the (optional, usually absent) package's types.
  const specifier: string = spec.pkg;
  try {
    await import(specifier);
    return { ok: true };
  } catch (error) {
    return { ok: false, notInstalled: isNotFound(error, spec.pkg), error };
  }
}

function isNotFound(error: unknown, pkg: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = e?.code;
  const msg = typeof e?.message === 'string' ? e.message : '';
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && msg.includes(pkg);
}

function errorText(error: unknown): string {
  const msg = error instanceof Error ? error.message : String(error);
  return msg.split('\n')[0] ?? msg;
}

function installHint(spec: NativeSpec): string {
  const gpu = spec.name === 'tensorflow-gpu';
  return (
    `install it with \`npm install ${spec.pkg}@4.22.0\` (its install step downloads libtensorflow, ` +
    `so it needs internet access${gpu ? '; the GPU build also needs CUDA and cuDNN' : ''}), ` +
    `or run with \`--backend wasm\` or \`--backend cpu\` instead`
  );
}

function unavailable(spec: NativeSpec, load: Extract<NativeLoad, { ok: false }>): BackendUnavailableError {
  const what = load.notInstalled
    ? `backend '${spec.name}' needs the optional package ${spec.pkg}, which is not installed`
    : `backend '${spec.name}': ${spec.pkg} is installed but failed to load (${errorText(load.error)})`;
  return new BackendUnavailableError(spec.name, `${what}; ${installHint(spec)}`, { cause: load.error });
}

async function activate(backend: string): Promise<void> {
  const ok = await tf.setBackend(backend);
  if (!ok) throw new BackendUnavailableError(backend as BackendName, `backend '${backend}' failed to initialize`);
  await tf.ready();
  if (backend === 'cpu') quietCpuBanner();
  if (backend === 'wasm') useFasterWasmKernels();
}

/**
 * The cpu backend prints a "Hi, looks like you are running TensorFlow.js in Node.js ... install
 * tfjs-node" banner on its first tensor write. The only global switches for it (PROD / IS_TEST
 * flags) silence every tfjs warning or change behaviour, so instead the one-shot flag on the
 * backend instance is cleared; if a future tfjs renames it, this does nothing.
 */
function quietCpuBanner(): void {
  const b = tf.findBackend('cpu') as unknown as { firstUse?: unknown } | undefined;
  if (b != null && typeof b.firstUse === 'boolean') b.firstUse = false;
}

function missingKernelsError(backend: string, missing: string[]): Error {
  const alternatives = ['cpu', 'wasm', NATIVE_BACKEND].filter(
    (b) => b !== backend && tf.findBackendFactory(b) != null && kernelsMissing(b, missing).length === 0,
  );
  const alt = alternatives.length > 0 ? `; backends that have them: ${alternatives.join(', ')}` : '';
  return new Error(`backend '${backend}' lacks required kernels: ${missing.join(', ')}${alt}`);
}

/**
 * Activates a backend (`await tf.setBackend(x); await tf.ready()`) and logs
 * `backend: <name> (<reason>)`. Throws BackendUnavailableError for an explicitly requested native
 * backend that is not installed, and an Error naming the kernels when an explicitly requested
 * backend (or every auto candidate) lacks some of `requiredKernels`.
 */
export async function selectBackend(name: BackendName, opts: SelectBackendOptions = {}): Promise<SelectedBackend> {
  const required = opts.requiredKernels ?? [];
  const log = opts.log ?? ((line: string) => console.error(line));
  const done = (backend: string, reason: string): SelectedBackend => {
    log(`backend: ${backend} (${reason})`);
    return { backend, requested: name, reason };
  };

  switch (name) {
    case 'tensorflow-gpu':
    case 'tensorflow': {
      const spec = NATIVE[name];
      const load = await loadNative(spec);
      if (!load.ok) throw unavailable(spec, load);
      const missing = kernelsMissing(NATIVE_BACKEND, required);
      if (missing.length > 0) throw missingKernelsError(NATIVE_BACKEND, missing);
      await activate(NATIVE_BACKEND);
      return done(NATIVE_BACKEND, `requested, via ${spec.pkg}`);
    }
    case 'wasm':
    case 'cpu': {
      const missing = kernelsMissing(name, required);
      if (missing.length > 0) throw missingKernelsError(name, missing);
      await activate(name);
      return done(name, 'requested');
    }
    case 'auto':
      return done(...(await selectAuto(required)));
    default: {
      const bad: never = name;
      throw new Error(`unknown backend '${String(bad)}'; expected one of ${BACKEND_NAMES.join(', ')}`);
    }
  }
}

async function selectAuto(required: string[]): Promise<[string, string]> {
  const skipped: string[] = [];
  for (const spec of [NATIVE['tensorflow-gpu'], NATIVE.tensorflow]) {
    const load = await loadNative(spec);
    if (!load.ok) {
      // Not installed is the normal case and stays quiet; a broken install is worth a word.
      skipped.push(
        load.notInstalled ? `${spec.pkg} not installed` : `${spec.pkg} failed to load: ${errorText(load.error)}`,
      );
      continue;
    }
    const missing = kernelsMissing(NATIVE_BACKEND, required);
    if (missing.length > 0) {
      skipped.push(`${NATIVE_BACKEND} lacks ${missing.join(', ')}`);
      continue;
    }
    try {
      await activate(NATIVE_BACKEND);
    } catch (error) {
      skipped.push(`${spec.pkg} failed to initialize: ${errorText(error)}`);
      continue;
    }
    return [NATIVE_BACKEND, `auto: via ${spec.pkg}`];
  }
  for (const backend of ['wasm', 'cpu']) {
    const missing = kernelsMissing(backend, required);
    if (missing.length > 0) {
      skipped.push(`${backend} lacks ${missing.join(', ')}`);
      continue;
    }
    await activate(backend);
    return [backend, `auto; ${skipped.join('; ')}`];
  }
  throw new Error(`no backend has all required kernels (${required.join(', ')}): ${skipped.join('; ')}`);
}

/**
 * Everything the viewer shows, independent of the transport: the episode listing (datasets and
 * a run's anchors), the run's metrics, and per episode the scene geometry, real geom poses and
 * the world model's imagined rollouts posed the same way.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RobotDescription } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { readManifest } from '../data/datasetManifest.ts';
import { LabelStore, type OperatorLabel } from '../operator/labelStore.ts';
import { confirmResetPrompt, readPending, type PendingItem } from '../operator/pendingItems.ts';
import { envRecordDir } from '../success/envRecordDir.ts';
import { featuresOfModel } from '../rl/corrections/worldModelFeatures.ts';
import type { Episode } from '../core/types.ts';
import { loadPolicy } from '../policy/policyFiles.ts';
import { loadWorldModel } from '../worldmodel/worldModelFiles.ts';
import { EpisodeCatalog, type CatalogSource } from './episodeCatalog.ts';
import type { LiveEpisode } from './liveEpisode.ts';
import { ModelImagination, RunImagination, type Imagination, type ImaginedEpisode } from './imagination.ts';
import type { EpisodeSummary, EpisodeView, ImaginedView, MetricsRecord, RunInfo } from './messages.ts';
import { RunFolder } from './runFolder.ts';
import { episodeStates, SceneKinematics, type PoseState } from './sceneKinematics.ts';
import { listedSummary, WAITING_NOTE } from './waitingForLabel.ts';

export interface ViewerDataOptions {
  /** A `wmrl train` run folder (metrics, anchors, checkpoint world model). */
  runDir?: string;
  /** Dataset folders whose episodes can be opened (e.g. the run's --data). */
  dataDirs?: string[];
  /** A standalone world model (`wmrl wm train` output) to imagine with instead of the run's. */
  worldModelDir?: string;
  /** Robot descriptions for episodes of robots not under robots/ (by their name); others load by name. */
  robots?: RobotDescription[];
  /** The episode a command is running now (`wmrl run --view`), listed first and followed step by step. */
  live?: LiveEpisode;
}

/** What a poll found, for the server to push. */
export interface DataChanges {
  /** New metrics records from index `from` (from 0 with `reset`: the log was rewritten). */
  metrics: { from: number; records: MetricsRecord[] } | null;
  episodes: boolean;
  run: boolean;
  /** The operator's pending list changed. */
  pending: boolean;
}

export class ViewerData {
  readonly run: RunFolder | null;
  readonly dataDirs: string[];
  readonly worldModelDir: string | null;
  readonly live: LiveEpisode | null;
  /** The live episode's version and `count:ended` as of the last poll. */
  #liveSeen = { version: -1, key: '' };
  #robots: Map<string, RobotDescription>;
  #catalog = new EpisodeCatalog();
  #scenes = new Map<string, SceneKinematics>();
  #loaded: { step: number | null; value: Promise<Imagination> } | null = null;
  #views = new Map<string, EpisodeView>();
  #pending: PendingItem[] = [];
  /**
   * Folders whose operator questions are answered here: the run's (its trainer asks) and each
   * dataset's (`wmrl label` asks); each keeps its questions in operator/pending.json and its labels
   * in labels.jsonl.
   */
  #operatorDirs: string[];
  /** The folder each pending item came from, where its answer goes. */
  #pendingDir = new Map<string, string>();
  /** Datasets a running `wmrl label` asks about now: every episode of theirs without a label waits. */
  #labelling = new Set<string>();
  #labelStores = new Map<string, LabelStore>();
  /** Ids answered here: hidden until the trainer, which polls for answers, takes them off its list. */
  #answered = new Set<string>();
  /**
   * Episodes asked about while this viewer watched, by the step that asked: listed (with their label
   * once given) until that step completes, when the checkpoint says which anchors count.
   */
  #asked = new Map<string, number | null>();
  /** The catalogue as listed: waiting episodes without an outcome, labelled ones with their label. */
  #listed: EpisodeSummary[] = [];

  constructor(options: ViewerDataOptions) {
    if (!options.runDir && !options.dataDirs?.length && !options.live)
      throw new Error('give a run folder (--run) or a dataset (--data), or both');
    this.live = options.live ?? null;
    this.run = options.runDir ? new RunFolder(options.runDir) : null;
    this.dataDirs = options.dataDirs ?? [];
    for (const d of this.dataDirs)
      if (!existsSync(join(d, 'dataset.json'))) throw new Error(`${d} is not a wmrl dataset (no dataset.json)`);
    this.worldModelDir = options.worldModelDir ? standaloneModelDir(options.worldModelDir) : null;
    this.#robots = new Map((options.robots ?? []).map((r) => [r.name, r]));
    this.#operatorDirs = [...(this.run ? [this.run.dir] : []), ...this.dataDirs];
  }

  get records(): readonly MetricsRecord[] {
    return this.run?.records ?? [];
  }

  /** The live episode first; once stored (--record), it is listed only as live until the next begins. */
  get episodes(): EpisodeSummary[] {
    const live = this.live?.summary();
    return live ? [live, ...this.#listed.filter((s) => s.id !== live.id)] : this.#listed;
  }

  /** What waits for the operator: the run's questions (its trainer's desk), then each dataset's (wmrl label's). */
  get pending(): readonly PendingItem[] {
    return this.#pending;
  }

  /**
   * Records the operator's label of a pending episode in the labels.jsonl of the folder that asks (the
   * run's, where the trainer reads it, or the dataset's, where `wmrl label` and `wmrl success train` read
   * it); returns the label that counts (an earlier one, if the episode had been labelled).
   */
  async label(episode: string, verdict: OperatorLabel['verdict'], note?: string): Promise<OperatorLabel> {
    const dir = this.#pendingDir.get(episode);
    if (!dir || !this.#pending.some((p) => p.kind === 'label' && p.id === episode))
      throw new Error(
        `episode ${episode} does not wait for a label (labels are taken for the episodes that wmrl train ` +
          'or wmrl label asks about)',
      );
    const stored = await (await this.#labelStore(dir)).add({
      episode,
      verdict,
      ...(note?.trim() ? { note: note.trim() } : {}),
      by: 'viewer',
      at: new Date().toISOString(),
    });
    this.#answered.add(episode);
    this.#pending = this.#pending.filter((p) => p.id !== episode);
    this.#list();
    return stored;
  }

  /** Records that the operator set up the scene of pending reset prompt `id`. */
  async resetReady(id: string): Promise<void> {
    const dir = this.#pendingDir.get(id);
    if (!dir || !this.#pending.some((p) => p.kind === 'reset' && p.id === id))
      throw new Error(`no reset prompt ${id} waits (it was answered, or the trainer stopped)`);
    await confirmResetPrompt(dir, id, 'viewer');
    this.#answered.add(id);
    this.#pending = this.#pending.filter((p) => p.id !== id);
  }

  runInfo(live: boolean): RunInfo {
    const step = this.run?.checkpointStep ?? null;
    const models = this.run?.checkpointModels();
    const imagination = this.worldModelDir
      ? `the world model ${this.worldModelDir}`
      : models
        ? `the run's perception world model (checkpoint at step ${step ?? '?'})`
        : null;
    return {
      runDir: this.run?.dir ?? null,
      checkpointStep: step,
      imagination,
      live: live && (this.run !== null || this.live !== null),
    };
  }

  /** Read the run folder and datasets; call once before serving, then poll() for changes. */
  async poll(): Promise<DataChanges> {
    const changes: DataChanges = { metrics: null, episodes: false, run: false, pending: false };
    const before = this.records.length;
    // Whether a row's outcome may have changed (asked, answered, labelled) without a rescan.
    let relist = false;
    // A changed pending list is taken at the end, with the rows: the page never sees one without the other.
    let pending: { items: PendingItem[]; dirs: Map<string, string> } | null = null;
    if (this.run) {
      const c = await this.run.poll();
      if (c.reset) changes.metrics = { from: 0, records: [...this.run.records] };
      else if (c.records.length > 0) changes.metrics = { from: before, records: c.records };
      if (c.checkpointChanged) {
        changes.run = true;
        this.#views.clear();
      }
      if (c.anchorsChanged) changes.episodes = true;
    }
    const dirs = new Map<string, string>();
    const listed: PendingItem[] = [];
    for (const dir of this.#operatorDirs)
      for (const p of await readPending(dir)) {
        dirs.set(p.id, dir);
        listed.push(p);
      }
    for (const id of this.#answered) if (!listed.some((p) => p.id === id)) this.#answered.delete(id);
    const next = listed.filter((p) => !this.#answered.has(p.id));
    if (JSON.stringify(next) !== JSON.stringify(this.#pending)) {
      pending = { items: next, dirs };
      changes.pending = true;
      // The run's newly waiting episodes join the list (the step's anchors are not counted yet).
      for (const p of next)
        if (p.kind === 'label' && dirs.get(p.id) === this.run?.dir && !this.#asked.has(p.id)) {
          this.#asked.set(p.id, p.step);
          changes.episodes = true;
        }
    }
    if (this.run) {
      // A completed step's anchors are the checkpoint's to list.
      const done = this.run.checkpointStep;
      const waiting = new Set((pending?.items ?? this.#pending).map((p) => p.id));
      for (const [id, step] of this.#asked)
        if (step !== null && done !== null && step <= done && !waiting.has(id)) this.#asked.delete(id);
    }
    // A label given on the asking terminal (the trainer's, wmrl label's) shows too.
    let labelled = 0;
    for (const dir of this.#operatorDirs) labelled += (await (await this.#labelStore(dir)).refresh()).length;
    // Datasets a running wmrl label asks about (answered questions included, until the desk takes them off its list).
    const labelling = new Set(
      listed.flatMap((p) => (p.kind === 'label' && dirs.get(p.id) !== this.run?.dir ? [dirs.get(p.id)!] : [])),
    );
    const labellingChanged = [...labelling].sort().join('\n') !== [...this.#labelling].sort().join('\n');
    this.#labelling = labelling;
    relist = changes.pending || labelled > 0 || labellingChanged;
    let liveChanged = false;
    let rescan = changes.episodes;
    if (this.live && this.live.version !== this.#liveSeen.version) {
      liveChanged = true;
      // An episode that ended (or a new one) may have been stored in a --data folder: list it.
      const key = `${this.live.count}:${this.live.ended}`;
      rescan ||= key !== this.#liveSeen.key;
      this.#liveSeen = { version: this.live.version, key };
    }
    const previous = JSON.stringify(this.#listed);
    if (this.#catalog.size === 0 || rescan) {
      relist = true;
      const sources: CatalogSource[] = this.dataDirs.map((dir) => ({ dir, origin: 'data' }));
      const asked = new Set(this.#asked.keys());
      if (this.run) {
        sources.push(this.run.anchorSource(asked));
        // A spot check of the success detector waits on an episode only the environment's record holds yet.
        sources.push({ dir: envRecordDir(this.run.dir), origin: 'anchor', keep: (id) => asked.has(id) });
      }
      await this.#catalog.scan(sources);
    }
    // Without an await in between; an answer given here meanwhile stays answered.
    if (pending) {
      this.#pending = pending.items.filter((p) => !this.#answered.has(p.id));
      this.#pendingDir = pending.dirs;
    }
    if (relist) this.#list();
    changes.episodes = JSON.stringify(this.#listed) !== previous || liveChanged;
    return changes;
  }

  #isWaiting(id: string): boolean {
    return this.#pending.some((p) => p.kind === 'label' && p.id === id);
  }

  async #labelStore(dir: string): Promise<LabelStore> {
    let store = this.#labelStores.get(dir);
    if (!store) {
      store = await LabelStore.open(dir);
      this.#labelStores.set(dir, store);
    }
    return store;
  }

  /** The catalogue as the page may see it (waitingForLabel.ts). */
  #list(): void {
    this.#listed = this.#catalog.summaries.map((s) => {
      if (s.origin === 'anchor')
        return listedSummary(s, {
          waiting: this.#isWaiting(s.id),
          label: this.run ? this.#labelStores.get(this.run.dir)?.get(s.id) : undefined,
          step: this.#asked.get(s.id) ?? null,
        });
      if (s.origin !== 'data') return s;
      const dir = this.#catalog.dirOf(s.id);
      const label = dir === undefined ? undefined : this.#labelStores.get(dir)?.get(s.id);
      // While wmrl label asks about a dataset, all its episodes without a label are still to be asked: blind too.
      const waiting = this.#isWaiting(s.id) || (!label && dir !== undefined && this.#labelling.has(dir));
      return listedSummary(s, { waiting, label, step: null });
    });
  }

  /** The scene, real poses and imagined rollouts of one episode. */
  async episodeView(id: string): Promise<EpisodeView> {
    if (this.live && id === this.live.id) return this.#liveView();
    const step = this.run?.checkpointStep ?? null;
    const summary = this.#listed.find((s) => s.id === id);
    if (!summary) throw new Error(`no episode '${id}' in this viewer's datasets or run`);
    // A label given since the view was built changes what it may show.
    const key = `${id}@${step}:${summary.waiting ? 'waiting' : summary.success}`;
    const cached = this.#views.get(key);
    if (cached) return cached;
    const episode = await this.#catalog.load(id);
    const robot = await this.#robotOf(episode.robot);
    const scene = await this.#scene(robot);
    let imagined: ImaginedEpisode | null = null;
    let note: string | null = null;
    try {
      // Blind while it waits: the world model's imagined success is a score too.
      const imagination = summary.waiting ? null : await this.#imagination(robot);
      if (imagination) imagined = imagination.imagine(episode);
      else
        note = summary.waiting
          ? WAITING_NOTE
          : this.run
            ? 'no world model in this run yet (checkpoint/worldmodel ' +
              'appears after the first checkpoint; mode "real" has none)'
            : 'no world model: pass --run or --world-model to see imagined rollouts';
    } catch (err) {
      note = `imagination failed: ${(err as Error).message}`;
    }
    const view = buildView(scene, episode, summary, imagined, note, this.worldModelDir ? null : step);
    this.#views.set(key, view);
    if (this.#views.size > 2) this.#views.delete(this.#views.keys().next().value!);
    return view;
  }

  /** The live episode as recorded so far; no imagination (it has not finished). */
  async #liveView(): Promise<EpisodeView> {
    const live = this.live!;
    const key = `${live.id}#${live.version}`;
    const cached = this.#views.get(key);
    if (cached) return cached;
    // Packed together, before any await: the rollout adds steps meanwhile.
    const episode = live.episode()!;
    const summary = live.summary()!;
    const note = 'no imagined rollouts of a live episode (wmrl run loads no world model)';
    const scene = await this.#scene(await this.#robotOf(episode.robot));
    const view = buildView(scene, episode, summary, null, note, null);
    this.#views.set(key, view);
    if (this.#views.size > 2) this.#views.delete(this.#views.keys().next().value!);
    return view;
  }

  async close(): Promise<void> {
    for (const s of this.#scenes.values()) s.close();
    this.#scenes.clear();
    const im = this.#loaded;
    this.#loaded = null;
    if (im) (await im.value.catch(() => null))?.dispose();
  }

  /** A robot by name, loaded from where a dataset recorded it (a path outside robots/, or the name). */
  async #robotOf(name: string): Promise<RobotDescription> {
    let robot = this.#robots.get(name);
    if (robot) return robot;
    let ref = name;
    for (const dir of [...this.dataDirs, ...(this.run ? [this.run.anchorsDir, envRecordDir(this.run.dir)] : [])]) {
      const manifest = existsSync(join(dir, 'dataset.json')) ? await readManifest(dir) : null;
      if (manifest?.robot === name && manifest.robotPath) ref = manifest.robotPath;
    }
    robot = loadRobotWithTasks(ref);
    this.#robots.set(name, robot);
    return robot;
  }

  async #scene(robot: RobotDescription): Promise<SceneKinematics> {
    let scene = this.#scenes.get(robot.name);
    if (!scene) {
      scene = await SceneKinematics.create(robot);
      this.#scenes.set(robot.name, scene);
    }
    return scene;
  }

  /** The imagination for the current checkpoint (reloaded when training saves a new one). */
  async #imagination(robot: RobotDescription): Promise<Imagination | null> {
    if (this.worldModelDir) {
      const dir = this.worldModelDir;
      this.#loaded ??= { step: null, value: loadWorldModel(dir).then((m) => new ModelImagination(m, dir)) };
      return this.#loaded.value;
    }
    const models = this.run?.checkpointModels();
    if (!models) return null;
    const step = this.run!.checkpointStep;
    if (this.#loaded?.step !== step || !this.#loaded) {
      const old = this.#loaded;
      this.#loaded = {
        step,
        value: (async () => {
          const policy = await loadPolicy(models.policyDir);
          try {
            const model = await loadWorldModel(models.worldModelDir);
            try {
              // A world model trained with worldModel.endEffector carries the gripper position after the perception.
              return new RunImagination(policy, model, step, await featuresOfModel(model, policy, robot));
            } catch (err) {
              model.dispose();
              throw err;
            }
          } catch (err) {
            policy.dispose();
            throw err;
          }
        })(),
      };
      if (old) (await old.value.catch(() => null))?.dispose();
    }
    try {
      return await this.#loaded.value;
    } catch (err) {
      // A checkpoint caught mid-save: forget the failure so the next request loads again.
      this.#loaded = null;
      throw err;
    }
  }
}

/** `wmrl wm train --out DIR` keeps the checkpoint in DIR/model; accept either. */
function standaloneModelDir(dir: string): string {
  if (existsSync(join(dir, 'model', 'model.json'))) return join(dir, 'model');
  if (existsSync(join(dir, 'model.json'))) return dir;
  throw new Error(`${dir} holds no world model (no model.json, no model/model.json)`);
}

function buildView(
  scene: SceneKinematics,
  episode: Episode,
  summary: EpisodeSummary,
  imagined: ImaginedEpisode | null,
  note: string | null,
  modelStep: number | null,
): EpisodeView {
  const geoms = scene.load(episode);
  const states = episodeStates(episode, scene.objectCount);
  // A real robot's scene is not the simulator's layout for its seed: without
  // recorded object poses, show no objects rather than made-up ones.
  if (episode.source !== 'sim' && !states[0]?.objects)
    geoms.visible = geoms.visible.map((v, g) => (geoms.role[g] === 'object' || geoms.role[g] === 'zone' ? 0 : v));
  const real = scene.poses(states);
  const cameras = Object.entries(episode.cameras).map(([name, c]) => ({
    name,
    width: c.width,
    height: c.height,
    frames: c.frames,
  }));
  return {
    summary,
    controlHz: episode.controlHz,
    geoms,
    poses: real.poses,
    ee: real.ee,
    // The recorded progress and success flags carry the outcome the waiting question must not show.
    progress: summary.waiting ? null : episode.progress,
    successes: summary.waiting ? null : episode.successes,
    cameras,
    imagined: imagined ? ghostView(scene, geoms.role, imagined, modelStep) : null,
    imaginationNote: note,
  };
}

/** Pose every member's imagined state; the arm (and objects, when predicted) become ghosts. */
function ghostView(
  scene: SceneKinematics,
  roles: string[],
  im: ImaginedEpisode,
  modelStep: number | null,
): ImaginedView {
  const { members: K, horizon: H, qposDim: Q } = im;
  const ghostGeoms = roles.flatMap((r, g) => (r === 'robot' || (r === 'object' && im.objects) ? [g] : []));
  const n = Math.min(im.objectCount, scene.objectCount);
  const states: PoseState[] = [];
  for (let i = 0; i < (H + 1) * K; i++) {
    const objects =
      im.objects && n > 0 ? im.objects.subarray(i * 7 * im.objectCount, i * 7 * im.objectCount + 7 * n) : undefined;
    states.push({ qpos: im.qpos.subarray(i * Q, (i + 1) * Q), ...(objects ? { objects } : {}) });
  }
  const { poses, ee } = scene.poses(states, ghostGeoms);
  return {
    method: 'replay',
    kind: im.kind,
    modelStep,
    members: K,
    horizon: H,
    ghostGeoms,
    ghostPoses: poses,
    ghostEe: ee,
    disagreement: spread(ee, H + 1, K),
    successProb: im.successProb,
    progress: im.progress,
    frames: im.frames,
  };
}

/** Per step: RMS distance of the K members' end-effector positions to their mean. */
export function spread(ee: Float32Array, steps: number, K: number): Float32Array {
  const out = new Float32Array(steps);
  for (let t = 0; t < steps; t++) {
    const mean = [0, 0, 0];
    for (let k = 0; k < K; k++) for (let d = 0; d < 3; d++) mean[d]! += ee[(t * K + k) * 3 + d]! / K;
    let sum = 0;
    for (let k = 0; k < K; k++) for (let d = 0; d < 3; d++) sum += (ee[(t * K + k) * 3 + d]! - mean[d]!) ** 2;
    out[t] = Math.sqrt(sum / K);
  }
  return out;
}

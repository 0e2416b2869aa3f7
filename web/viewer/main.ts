/**
 * The viewer page: wires the connection, the 3D scene, the cameras, the timeline, the training
 * charts and the sidebar. The URL hash holds the selection (`#episode=ID&t=FRAME&step=N`), so
 * a link opens a given episode at a given step.
 */
import type { EpisodeSummary, EpisodeView, MetricsRecord, RunInfo, ServerMessage } from '../../src/viewer/messages.ts';
import { CameraPanel } from './cameraPanel.ts';
import { Connection, type ConnectionState } from './connection.ts';
import { OperatorPanel } from './operatorPanel.ts';
import { DEVIATION_SCALE, SceneView } from './sceneView.ts';
import { Sidebar } from './sidebar.ts';
import { StepStrip } from './stepStrip.ts';
import { stepRecords, TrainingCharts } from './trainingCharts.ts';

/** A frame past any episode's end: shown as its last (newest) step, however many it has by then. */
const NEWEST = Number.MAX_SAFE_INTEGER;
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

class ViewerPage {
  records: MetricsRecord[] = [];
  episodes: EpisodeSummary[] = [];
  run: RunInfo | null = null;
  view: EpisodeView | null = null;
  selectedStep: number | null = null;
  #wanted: { id: string; request: number; frame: number } | null = null;
  /**
   * The open episode was opened to follow the live one. It may arrive as the stored copy (the live
   * episode moved on while the request was on its way); the page must still follow the next.
   */
  #following = false;
  #playing = false;
  #lastTick = 0;
  #carry = 0;
  readonly scene = new SceneView($<HTMLCanvasElement>('scene-canvas'));
  #cameras = new CameraPanel();
  #strip = new StepStrip();
  #charts = new TrainingCharts((step) => this.selectStep(step));
  #sidebar = new Sidebar({ openEpisode: (id) => this.openEpisode(id, 0), selectStep: (step) => this.selectStep(step) });
  #scrubber = $<HTMLInputElement>('scrubber');
  #connection: Connection;
  readonly operator = new OperatorPanel({
    show: (id) => this.openEpisode(id, 0),
    label: (id, verdict, note) => this.#connection.label(id, verdict, note),
    resetReady: (id) => this.#connection.resetReady(id),
  });

  constructor() {
    this.#connection = new Connection(
      (m) => this.#receive(m),
      (s) => this.#connectionState(s),
    );
    this.#scrubber.addEventListener('input', () => this.setFrame(Number(this.#scrubber.value)));
    $('play').addEventListener('click', () => this.#togglePlay());
    window.addEventListener('hashchange', () => this.#followHash());
    window.addEventListener('keydown', (ev) => {
      // Inputs and selects handle their own keys (the scrubber steps natively).
      if (
        ev.target instanceof HTMLInputElement ||
        ev.target instanceof HTMLSelectElement ||
        ev.target instanceof HTMLButtonElement
      )
        return;
      if (ev.key === ' ') ev.preventDefault(), this.#togglePlay();
      if (ev.key === 'ArrowRight') this.setFrame(this.scene.frame + 1);
      if (ev.key === 'ArrowLeft') this.setFrame(this.scene.frame - 1);
    });
    this.#charts.draw(this.records, null);
  }

  openEpisode(id: string, frame: number, follow = false): void {
    this.#following = follow;
    this.#wanted = { id, frame, request: this.#connection.open(id) };
    // A live episode opened again as it grows keeps its caption until the newer copy arrives.
    if (id !== this.view?.summary.id) $('instruction').textContent = `loading ${id.slice(0, 8)}…`;
    this.#writeHash();
  }

  selectStep(step: number): void {
    this.selectedStep = step;
    this.#charts.draw(this.records, step);
    this.#sidebar.setSelection(this.view?.summary.id ?? this.#wanted?.id ?? null, step);
    this.#writeHash();
  }

  setFrame(frame: number): void {
    const view = this.view;
    if (!view) return;
    const T = lastFrame(view);
    const t = Math.max(0, Math.min(T, Math.round(frame)));
    this.scene.setFrame(t);
    this.#cameras.setFrame(t);
    this.#strip.setFrame(t);
    this.#scrubber.value = String(t);
    $('frame-label').textContent = `${t} / ${T} (${(t / view.controlHz).toFixed(1)} s)`;
  }

  #receive(m: ServerMessage): void {
    switch (m.type) {
      case 'hello':
        this.run = m.run;
        this.#showRun();
        this.#connectionState('open');
        this.#setEpisodes(m.episodes);
        this.records = [];
        // After a reconnect, ask again for what was open.
        if (this.view || this.#wanted)
          this.openEpisode(this.view?.summary.id ?? this.#wanted!.id, this.scene.frame, this.#following);
        else this.#followHash(true);
        break;
      case 'metrics':
        this.records = m.from === 0 ? [...m.records] : [...this.records.slice(0, m.from), ...m.records];
        this.#showMetrics();
        break;
      case 'episodes':
        this.#setEpisodes(m.episodes);
        this.#followLive();
        this.#followLabel();
        break;
      case 'run': {
        const newModel = m.run.checkpointStep !== this.run?.checkpointStep;
        this.run = m.run;
        this.#showRun();
        // A new checkpoint holds a refitted world model: imagine the open episode again.
        if (newModel && this.view?.imagined && !this.#wanted)
          this.openEpisode(this.view.summary.id, this.scene.frame, this.#following);
        break;
      }
      case 'episode':
        if (this.#wanted?.request !== m.request) return;
        this.#show(m.episode, this.#wanted.frame);
        this.#wanted = null;
        // The live episode may have moved on (or ended) while this one was on its way.
        this.#followLive();
        break;
      case 'pending': {
        const fresh = this.operator.setItems(m.items);
        this.#sidebar.setPending(new Set(m.items.flatMap((i) => (i.kind === 'label' ? [i.id] : []))));
        // A new episode to label is shown at once, unless one waiting for a label is open already.
        const showing = this.view?.summary.id ?? this.#wanted?.id;
        if (fresh[0] && !m.items.some((i) => i.kind === 'label' && i.id === showing)) this.openEpisode(fresh[0].id, 0);
        break;
      }
      case 'answered':
        this.operator.answered(m.ok, m.message);
        break;
      case 'error':
        if (m.request !== null && this.#wanted?.request !== m.request) return;
        this.#wanted = null;
        $('instruction').textContent = `error: ${m.message}`;
        break;
    }
  }

  #show(view: EpisodeView, frame: number): void {
    this.view = view;
    this.#scrubber.max = String(lastFrame(view));
    $('instruction').textContent =
      `“${view.summary.instruction}” — ${outcomeLabel(view.summary)} ` +
      `(${originLabel(view.summary)}` +
      `, ${view.summary.policy})`;
    this.scene.show(view, frame);
    this.#cameras.show(view);
    this.#strip.show(view);
    const im = view.imagined;
    const legend = $('legend');
    legend.replaceChildren(
      im
        ? `solid: real episode · ghosts: ${im.members} ensemble members replaying its ` +
            `actions${im.modelStep !== null ? ` (world model of step ${im.modelStep})` : ''} · ` +
            `colour: member's end-effector distance from the ensemble mean, 0 `
        : `solid: real episode · ${view.imaginationNote ?? 'no imagination'}`,
    );
    if (im) {
      const scale = document.createElement('span');
      scale.className = 'scale';
      legend.append(scale, ` ≥ ${DEVIATION_SCALE * 100} cm`);
    }
    this.#sidebar.setSelection(view.summary.id, this.selectedStep);
    this.setFrame(frame);
    this.#writeHash();
  }

  /**
   * While a live episode is open, open it again as it grows (at its newest step when the page was
   * showing the newest one), and move on to the next live episode when one begins.
   */
  #followLive(): void {
    const open = this.view?.summary;
    const live = this.episodes.find((e) => e.origin === 'live');
    if (this.#wanted || !live) return;
    // A page that opened before the first episode began shows it as soon as it does.
    if (!open) return void this.openEpisode(live.id, NEWEST, true);
    if (open.origin !== 'live' && !this.#following) return;
    if (live.id === open.id && live.steps === open.steps && live.running === open.running) return;
    const atEnd = this.scene.frame >= lastFrame(this.view!);
    this.openEpisode(live.id, live.id !== open.id || atEnd ? NEWEST : this.scene.frame, true);
  }

  /** The open episode was labelled (its outcome may show now), or began to wait (it must not): open it again. */
  #followLabel(): void {
    const open = this.view?.summary;
    const listed = open && this.episodes.find((e) => e.id === open.id);
    if (!this.#wanted && listed && !!listed.waiting !== !!open.waiting)
      this.openEpisode(open.id, this.scene.frame, this.#following);
  }

  #setEpisodes(episodes: EpisodeSummary[]): void {
    this.episodes = episodes;
    this.#sidebar.setEpisodes(episodes);
  }

  #showRun(): void {
    const run = this.run!;
    // No run folder (`wmrl view --data`, `wmrl run --view`): no training to chart, so no empty panels.
    $('run-name').textContent = run.runDir ? `run ${run.runDir}` : run.live ? 'wmrl run (live)' : 'datasets';
    $('charts').hidden = !run.runDir;
    $('steps').hidden = !run.runDir;
    $('imagination-source').textContent = run.imagination ? `imagining with ${run.imagination}` : 'no world model';
  }

  #showMetrics(): void {
    const steps = stepRecords(this.records);
    const last = steps.at(-1);
    $('latest-step').textContent = last ? `step ${last.step} · ${(last.robotSeconds ?? 0).toFixed(0)} robot-s` : '';
    $('latest-step').dataset.step = last ? String(last.step) : '';
    this.#sidebar.setSteps(this.records);
    this.#charts.draw(this.records, this.selectedStep);
  }

  #connectionState(s: ConnectionState): void {
    const badge = $('connection');
    badge.textContent =
      s === 'open'
        ? this.run?.live
          ? 'live'
          : 'connected'
        : s === 'connecting'
          ? 'connecting…'
          : 'disconnected: retrying';
    badge.classList.toggle('live', s === 'open');
    badge.classList.toggle('down', s === 'closed');
  }

  #togglePlay(): void {
    this.#playing = !this.#playing;
    $('play').textContent = this.#playing ? '❚❚' : '▶';
    $('play').setAttribute('aria-label', this.#playing ? 'pause' : 'play');
    if (!this.#playing) return;
    if (this.view && this.scene.frame >= lastFrame(this.view)) this.setFrame(0);
    this.#lastTick = performance.now();
    this.#carry = 0;
    const tick = (now: number) => {
      if (!this.#playing || !this.view) return;
      const speed = Number($<HTMLSelectElement>('speed').value);
      this.#carry += ((now - this.#lastTick) / 1000) * this.view.controlHz * speed;
      this.#lastTick = now;
      const steps = Math.floor(this.#carry);
      if (steps > 0) {
        this.#carry -= steps;
        const next = this.scene.frame + steps;
        if (next >= lastFrame(this.view)) {
          this.setFrame(lastFrame(this.view));
          this.#togglePlay();
          return;
        }
        this.setFrame(next);
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  #followHash(initial = false): void {
    const params = new URLSearchParams(location.hash.slice(1));
    const step = params.get('step');
    if (step !== null && Number.isInteger(Number(step)) && Number(step) !== this.selectedStep)
      this.selectStep(Number(step));
    const id = params.get('episode');
    const frame = Number(params.get('t') ?? 0) || 0;
    if (id && id !== (this.view?.summary.id ?? this.#wanted?.id)) this.openEpisode(id, frame);
    else if (id && this.view?.summary.id === id && frame !== this.scene.frame) this.setFrame(frame);
    else if (!id && initial && this.episodes[0]) {
      // A live episode opens at its newest step, so that the page follows it from there.
      const first = this.episodes[0];
      this.openEpisode(first.id, first.origin === 'live' ? NEWEST : 0, first.origin === 'live');
    }
  }

  #writeHash(): void {
    const params = new URLSearchParams();
    const id = this.#wanted?.id ?? this.view?.summary.id;
    if (id) params.set('episode', id);
    if (this.selectedStep !== null) params.set('step', String(this.selectedStep));
    const hash = `#${params}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }
}

/** A running episode has no outcome yet: only a success so far is one. A waiting one shows none (blind). */
function outcomeLabel(s: EpisodeSummary): string {
  if (s.waiting) return 'waiting for your label';
  if (s.success) return 'success';
  if (s.running) return 'no success yet';
  return s.success === undefined ? 'outcome not recorded' : 'no success';
}

/** The episode's last time step (its end-effector path has one point per step, 0…T). */
function lastFrame(view: EpisodeView): number {
  return view.ee.length / 3 - 1;
}

function originLabel(s: EpisodeSummary): string {
  if (s.origin === 'live') return s.running ? 'live, running' : 'live, finished';
  return s.origin === 'data' ? 'dataset' : `anchor, step ${s.step ?? '?'}`;
}

const page = new ViewerPage();
/** For tests and the console: the page's state. */
(window as unknown as { wmrlViewer: unknown }).wmrlViewer = {
  get episode() {
    return page.view?.summary.id ?? null;
  },
  get frame() {
    return page.scene.frame;
  },
  get renderedFrame() {
    return page.scene.renderedFrame;
  },
  get meshTriangles() {
    return page.scene.meshTriangles;
  },
  get steps() {
    return stepRecords(page.records).map((s) => s.step);
  },
  get episodes() {
    return page.episodes.length;
  },
  get pending() {
    return page.operator.items.map((i) => `${i.kind}:${i.id}`);
  },
};

/**
 * The browsable run: the episode list (dataset episodes, then anchors grouped by training
 * step) with a text filter, and the list of training steps. Picking either calls back; the
 * page keeps the selection in the URL hash so it can be linked to.
 */
import type { EpisodeSummary, MetricsRecord } from '../../src/viewer/messages.ts';
import { outcomeMark } from './outcomeMark.ts';
import { stepRecords } from './trainingCharts.ts';

export interface SidebarHandlers {
  openEpisode: (id: string) => void;
  selectStep: (step: number) => void;
}

export class Sidebar {
  #episodes: EpisodeSummary[] = [];
  #list = document.getElementById('episode-list')!;
  #steps = document.getElementById('step-list')!;
  #filter = document.getElementById('episode-filter') as HTMLInputElement;
  #origin = document.getElementById('episode-origin') as HTMLSelectElement;
  #handlers: SidebarHandlers;
  #current: string | null = null;
  #step: number | null = null;
  /** Episodes whose label the operator is asked for now: their rows show no outcome. */
  #pending: ReadonlySet<string> = new Set();

  constructor(handlers: SidebarHandlers) {
    this.#handlers = handlers;
    this.#filter.addEventListener('input', () => this.#renderEpisodes());
    this.#origin.addEventListener('change', () => this.#renderEpisodes());
  }

  setEpisodes(episodes: EpisodeSummary[]): void {
    this.#episodes = episodes;
    this.#renderEpisodes();
  }

  /** The ids of the episodes waiting for the operator's label. */
  setPending(ids: ReadonlySet<string>): void {
    this.#pending = ids;
    this.#renderEpisodes();
  }

  setSelection(episode: string | null, step: number | null): void {
    this.#current = episode;
    this.#step = step;
    this.#renderEpisodes();
    for (const li of this.#steps.querySelectorAll<HTMLElement>('li[data-step]'))
      li.classList.toggle('selected', Number(li.dataset.step) === step);
  }

  setSteps(records: readonly MetricsRecord[]): void {
    const f = (v: unknown) => (typeof v === 'number' ? v.toFixed(2) : '–');
    const items = stepRecords(records).map((s) => {
      const li = document.createElement('li');
      li.dataset.step = String(s.step);
      li.textContent = `step ${s.step}`;
      const small = document.createElement('small');
      small.textContent =
        `imagined ${f(s.successImagined)} · anchors ${f(s.successAnchors)} · ` +
        `PPI ${s.ppi ? `${f(s.ppi.estimate)} [${f(s.ppi.lower)}, ${f(s.ppi.upper)}]` : '–'} ` +
        `· ${f(s.robotSeconds)} robot-s`;
      li.append(small);
      li.classList.toggle('selected', s.step === this.#step);
      li.addEventListener('click', () => this.#handlers.selectStep(s.step));
      return li;
    });
    this.#steps.replaceChildren(...items.reverse());
  }

  #renderEpisodes(): void {
    const text = this.#filter.value.trim().toLowerCase();
    const origin = this.#origin.value;
    const shown = this.#episodes.filter(
      (e) =>
        (origin === 'all' ||
          (origin === 'step' ? e.origin === 'anchor' && e.step === this.#step : e.origin === origin)) &&
        (!text || e.instruction.toLowerCase().includes(text) || e.id.toLowerCase().startsWith(text)),
    );
    const items: HTMLLIElement[] = [];
    let group = '';
    for (const e of shown) {
      const label =
        e.origin === 'live' ? 'live (wmrl run)' : e.origin === 'data' ? 'dataset' : `anchors · step ${e.step ?? '?'}`;
      if (label !== group) {
        group = label;
        const li = document.createElement('li');
        li.className = 'group';
        li.textContent = label;
        items.push(li);
      }
      const li = document.createElement('li');
      li.dataset.episode = e.id;
      const waiting = e.waiting || this.#pending.has(e.id);
      li.textContent = `${outcomeMark(e, this.#pending)} ${e.instruction}`;
      if (waiting) li.classList.add('waiting');
      const small = document.createElement('small');
      small.textContent =
        `${waiting ? 'waiting for your label · ' : ''}` +
        `${e.family} · ${e.split} · ${e.steps} steps · ${e.policy} · ${e.id.slice(0, 8)}`;
      li.append(small);
      li.classList.toggle('selected', e.id === this.#current);
      li.addEventListener('click', () => this.#handlers.openEpisode(e.id));
      items.push(li);
    }
    this.#list.replaceChildren(...items);
  }
}

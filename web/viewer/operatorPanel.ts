/**
 * "Waiting for you": what the trainer asks the operator. An anchor episode to label (show it, then
 * success / failure / skip with an optional note) and a scene to set up before an episode (its
 * instruction and what to place, then "scene ready"). Answers go to the server, which records them
 * in the run folder for the trainer; the trainer's terminal may answer first, and the item goes.
 */
import type { OperatorAnswer, PendingItem } from '../../src/viewer/messages.ts';

export interface OperatorHandlers {
  show: (episode: string) => void;
  label: (episode: string, verdict: OperatorAnswer, note: string) => void;
  resetReady: (id: string) => void;
}

export class OperatorPanel {
  #section = document.getElementById('operator')!;
  #list = document.getElementById('operator-list')!;
  #count = document.getElementById('operator-count')!;
  #status = document.getElementById('operator-status')!;
  #handlers: OperatorHandlers;
  #items: PendingItem[] = [];

  constructor(handlers: OperatorHandlers) {
    this.#handlers = handlers;
  }

  get items(): readonly PendingItem[] {
    return this.#items;
  }

  /** The whole list; returns the label items that were not listed before. */
  setItems(items: PendingItem[]): PendingItem[] {
    const before = new Set(this.#items.map((i) => i.id));
    this.#items = items;
    this.#section.hidden = items.length === 0 && !this.#status.textContent;
    this.#count.textContent = items.length > 0 ? `(${items.length})` : '';
    this.#list.replaceChildren(
      ...items.map((item) => (item.kind === 'label' ? this.#labelItem(item) : this.#resetItem(item))),
    );
    return items.filter((i) => i.kind === 'label' && !before.has(i.id));
  }

  answered(ok: boolean, message: string): void {
    this.#status.textContent = ok ? `recorded: ${message}` : `not recorded: ${message}`;
    this.#status.classList.toggle('refused', !ok);
    this.#section.hidden = false;
  }

  #labelItem(item: Extract<PendingItem, { kind: 'label' }>): HTMLLIElement {
    const li = document.createElement('li');
    li.dataset.kind = 'label';
    li.dataset.id = item.id;
    const title = document.createElement('div');
    title.textContent = `label: “${item.instruction}”`;
    const small = document.createElement('small');
    small.textContent =
      `${item.step !== null ? `step ${item.step} · ` : ''}${item.steps} steps · ${item.id}` +
      (item.reason === 'spot-check' ? ' · spot check' : '');
    const parts: HTMLElement[] = [title, small];
    if (item.reason === 'spot-check') {
      // Why it is asked: the label checks the detector, which decides the episodes nobody labels.
      // Blind: the detector's score is not shown, so the label stays independent of it.
      const why = document.createElement('small');
      why.className = 'operator-why';
      why.textContent = 'checks the success detector: judge what the robot did';
      parts.push(why);
    }
    const show = button('show', 'show its frames', () => this.#handlers.show(item.id));
    const note = document.createElement('input');
    note.type = 'text';
    note.placeholder = 'note (optional)';
    note.maxLength = 500;
    note.className = 'operator-note';
    const answer = (verdict: OperatorAnswer) => () => {
      for (const b of li.querySelectorAll('button')) b.disabled = true;
      this.#handlers.label(item.id, verdict, note.value);
    };
    const row = document.createElement('div');
    row.className = 'row operator-answers';
    row.append(
      button('success', 'the robot did it', answer('success')),
      button('failure', 'the robot did not do it', answer('failure')),
      button('skip', 'cannot tell: never trained on', answer('skip')),
    );
    li.append(...parts, show, note, row);
    return li;
  }

  #resetItem(item: Extract<PendingItem, { kind: 'reset' }>): HTMLLIElement {
    const li = document.createElement('li');
    li.dataset.kind = 'reset';
    li.dataset.id = item.id;
    const title = document.createElement('div');
    title.textContent = `set the scene up on ${item.robot}: “${item.instruction}”`;
    const steps = document.createElement('ul');
    for (const s of item.setup) {
      const step = document.createElement('li');
      step.textContent = s;
      steps.append(step);
    }
    const ready = button('scene ready', 'the scene is set up: start the episode', () => {
      ready.disabled = true;
      this.#handlers.resetReady(item.id);
    });
    li.append(title, steps, ready);
    return li;
  }
}

function button(text: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.title = title;
  b.dataset.answer = text;
  b.addEventListener('click', onClick);
  return b;
}

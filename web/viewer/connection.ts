/**
 * The page's websocket to the viewer server: msgpack binary frames both ways, reconnecting with
 * back-off when the server goes away (e.g. restarted). Replies to `open` carry the request
 * number, so a late answer to an older request is ignored.
 */
import { Packr, Unpackr } from 'msgpackr';
import type { ClientMessage, OperatorAnswer, ServerMessage } from '../../src/viewer/messages.ts';

export type ConnectionState = 'connecting' | 'open' | 'closed';

export class Connection {
  #ws: WebSocket | null = null;
  #packr = new Packr({ useRecords: false });
  #unpackr = new Unpackr({ useRecords: false });
  #onMessage: (m: ServerMessage) => void;
  #onState: (s: ConnectionState) => void;
  #retry = 500;
  #request = 0;

  constructor(onMessage: (m: ServerMessage) => void, onState: (s: ConnectionState) => void) {
    this.#onMessage = onMessage;
    this.#onState = onState;
    this.#connect();
  }

  /** Ask for an episode; returns the request number its reply will carry. */
  open(episode: string): number {
    const request = ++this.#request;
    this.#send({ type: 'open', request, episode });
    return request;
  }

  /** The operator's label of a pending episode. */
  label(episode: string, verdict: OperatorAnswer, note: string): void {
    this.#send({ type: 'label', episode, verdict, ...(note.trim() ? { note: note.trim().slice(0, 1000) } : {}) });
  }

  resetReady(id: string): void {
    this.#send({ type: 'reset-ready', id });
  }

  #send(m: ClientMessage): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(this.#packr.pack(m));
  }

  #connect(): void {
    this.#onState('connecting');
    const ws = new WebSocket(`ws://${location.host}/ws`);
    ws.binaryType = 'arraybuffer';
    this.#ws = ws;
    ws.onopen = () => {
      this.#retry = 500;
      this.#onState('open');
    };
    ws.onmessage = (ev) => {
      if (!(ev.data instanceof ArrayBuffer)) return;
      this.#onMessage(this.#unpackr.unpack(new Uint8Array(ev.data)) as ServerMessage);
    };
    ws.onclose = () => {
      this.#onState('closed');
      setTimeout(() => this.#connect(), this.#retry);
      this.#retry = Math.min(this.#retry * 2, 8000);
    };
  }
}

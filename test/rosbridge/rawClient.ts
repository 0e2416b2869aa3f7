/** A bare rosbridge websocket client for tests: sends exactly what it is given (no roslib, no safety). */
import { WebSocket } from 'ws';

export class RawClient {
  readonly socket: WebSocket;
  readonly received: Record<string, unknown>[] = [];
  closed = false;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.received.push(JSON.parse(data.toString()) as Record<string, unknown>);
    });
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
  }

  static async connect(url: string): Promise<RawClient> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Send and wait until the server has processed it (a reply to a later service call proves it). */
  async sendAndSettle(message: unknown): Promise<void> {
    this.send(message);
    await this.call('/wmrl/task_status', {});
  }

  async call(service: string, args: unknown, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const id = `call:${Math.random()}`;
    this.send({ op: 'call_service', id, service, args });
    return this.waitFor((m) => m.op === 'service_response' && m.id === id, timeoutMs);
  }

  async waitFor(match: (m: Record<string, unknown>) => boolean, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.received.slice(-3)).slice(0, 400)}`,
        );
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  close(): void {
    this.socket.close();
  }
}

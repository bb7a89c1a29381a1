// The page's side of DAP: requests to the worker, their responses as promises, events to
// listeners. The page is one more client of the adapter, like VS Code.

import type { DapMessage, FromWorker, ToWorker } from './messages';

export class DapError extends Error {}

type Listener = (message: DapMessage) => void;

export class DapClient {
  private worker: Worker;
  private seq = 0;
  private pending = new Map<number, { resolve: (body: any) => void; reject: (e: Error) => void }>();
  private listeners = new Map<string, Listener[]>();
  readonly ready: Promise<void>;
  /** Called when the session crashed (a bug in asmdbg). */
  onCrash: (message: string) => void = () => {};

  constructor(workerUrl: string) {
    this.worker = new Worker(workerUrl, { type: 'module' });
    let started: () => void;
    this.ready = new Promise((resolve) => (started = resolve));
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const data = event.data;
      if (data.kind === 'ready') {
        started();
      } else if (data.kind === 'crashed') {
        for (const { reject } of this.pending.values()) {
          reject(new DapError(data.message));
        }
        this.pending.clear();
        this.onCrash(data.message);
      } else if (data.kind === 'dap') {
        for (const message of data.messages as DapMessage[]) {
          this.receive(message);
        }
      }
    };
  }

  private post(message: ToWorker) {
    this.worker.postMessage(message);
  }

  private receive(message: DapMessage) {
    if (message.type === 'response') {
      const waiting = this.pending.get(message.request_seq!);
      this.pending.delete(message.request_seq!);
      if (waiting) {
        if (message.success) {
          waiting.resolve(message.body ?? {});
        } else {
          waiting.reject(new DapError(message.message ?? `${message.command} failed`));
        }
      }
    } else if (message.type === 'event') {
      for (const listener of this.listeners.get(message.event!) ?? []) {
        listener(message);
      }
      for (const listener of this.listeners.get('*') ?? []) {
        listener(message);
      }
    }
  }

  /** Listens to one event (`*`: every event). */
  on(event: string, listener: Listener) {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
  }

  request(command: string, args: unknown = {}): Promise<any> {
    const seq = ++this.seq;
    const message: DapMessage = { seq, type: 'request', command, arguments: args };
    const answer = new Promise((resolve, reject) => this.pending.set(seq, { resolve, reject }));
    this.post({ kind: 'dap', message });
    return answer;
  }

  setFiles(files: Record<string, string>) {
    this.post({ kind: 'files', files });
  }

  newSession() {
    for (const { reject } of this.pending.values()) {
      reject(new DapError('the session was replaced'));
    }
    this.pending.clear();
    this.post({ kind: 'new-session' });
  }
}

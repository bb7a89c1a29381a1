// What the page and its worker (worker.ts) post to each other.

/** The page to the worker. */
export type ToWorker =
  /** The program's files (sources, includes, input, keys) for the next launch. */
  | { kind: 'files'; files: Record<string, string> }
  /** Drop the session (and its program) and start a new one. */
  | { kind: 'new-session' }
  /** A DAP request. */
  | { kind: 'dap'; message: DapMessage }
  /** How large the WebAssembly memory is (for scripts/bench). */
  | { kind: 'memory' };

/** The worker to the page. */
export type FromWorker =
  | { kind: 'ready' }
  /** The session's messages (responses, events), in order. */
  | { kind: 'dap'; messages: unknown[] }
  /** The session panicked; the next request starts a new one. */
  | { kind: 'crashed'; message: string }
  | { kind: 'memory'; bytes: number };

export interface DapMessage {
  seq: number;
  type: 'request' | 'response' | 'event';
  command?: string;
  event?: string;
  arguments?: unknown;
  request_seq?: number;
  success?: boolean;
  message?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body?: any;
}

/** One load run, sent to bench/load-worker.ts over IPC. */
export interface LoadJob {
  /** Base URL, e.g. http://127.0.0.1:3000 (loopback only). */
  url: string;
  method: 'GET' | 'PUT' | 'POST' | 'PATCH';
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** Seconds of unmeasured load before the measured run (same requests). */
  warmup: number;
  /** Fixed total request rate (open-ish loop); omitted = as fast as the server answers. */
  overallRate?: number;
  tokens: string[];
  /** [path, index into tokens or -1, body]; requests cycle through the items in order. */
  items: [string, number, string?][];
  /** Body with "{n}" replaced by a unique counter, for items without a body. */
  bodyTemplate?: string;
  tag: string;
  /** Wait for a "go" message after the warm-up (the bench snapshots CPU and memory in between). */
  waitForGo: boolean;
}

export interface LoadResult {
  seconds: number;
  requests: number;
  ok: number;
  rps: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  firstError?: string;
  /** Milliseconds, exact percentiles over every response of the measured run. */
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  autocannonP99: number;
}

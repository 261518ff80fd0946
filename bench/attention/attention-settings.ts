import { int, type BenchConfig } from '../config.js';

/** The attention scenarios (issue 33); `attention` names them all. */
export const ATTENTION_SCENARIOS = ['attention-fanout', 'attention-webhooks', 'attention-saved-searches'];

/** BENCH_SCENARIOS may name single attention scenarios, or `attention` for all of them. */
export function attentionSelected(config: BenchConfig, name?: string): boolean {
  if (!config.scenarios) return true;
  if (config.scenarios.includes('attention')) return true;
  return name ? config.scenarios.includes(name) : config.scenarios.some((s) => ATTENTION_SCENARIOS.includes(s));
}

/** BENCH_SCENARIOS names attention scenarios and nothing else (every other part is skipped). */
export function attentionOnly(config: BenchConfig): boolean {
  return Boolean(config.scenarios?.every((s) => s === 'attention' || ATTENTION_SCENARIOS.includes(s)));
}

/** Sizes and rounds of the attention part (defaults: the figures). */
export function attentionSettings() {
  return {
    members: int('BENCH_ATTENTION_MEMBERS', 5_000, 10),
    watchers: int('BENCH_ATTENTION_WATCHERS', 1_000),
    ifUnread: int('BENCH_ATTENTION_IF_UNREAD', 500),
    documents: int('BENCH_ATTENTION_DOCUMENTS', 2_000, 100),
    /** Single events timed one after the other; then this many at once for the throughput. */
    fanoutRounds: int('BENCH_ATTENTION_FANOUT_ROUNDS', 3, 1),
    fanoutEvents: int('BENCH_ATTENTION_FANOUT_EVENTS', 4, 1),
    deliveries: int('BENCH_ATTENTION_DELIVERIES', 10_000, 1),
    webhookRounds: int('BENCH_ATTENTION_WEBHOOK_ROUNDS', 3, 1),
    /** The API load beside the drain: GET /api/documents/{id} at this rate. */
    apiRate: int('BENCH_ATTENTION_API_RATE', 50, 1),
    savedSearches: int('BENCH_ATTENTION_SAVED_SEARCHES', 10_000, 1),
    searchRounds: int('BENCH_ATTENTION_SEARCH_ROUNDS', 3, 1),
    /** Document updates per second while the write p50 is measured (a latency, not a throughput). */
    writeRate: int('BENCH_ATTENTION_WRITE_RATE', 20, 1),
  };
}

export type AttentionSettings = ReturnType<typeof attentionSettings>;

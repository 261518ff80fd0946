/**
 * An in-process nudge: the outbox writer calls `signalOutboxWrite()` once the transaction that
 * wrote events has committed, and the consumers listen, so an event written by this process is
 * taken at once instead of at the next poll. Other instances learn of events through their own
 * poll. Process-wide on purpose: several apps in one process (tests) just poll once more.
 */
type Listener = () => void;

/** How long a consumer waits after a signal, so that commits close together are taken in one run. */
export const OUTBOX_NUDGE_DELAY_MS = 15;
const listeners = new Set<Listener>();

export function signalOutboxWrite(): void {
  for (const listener of listeners) listener();
}

/** Answers a function that removes the listener. */
export function onOutboxWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

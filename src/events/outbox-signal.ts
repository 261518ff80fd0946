/**
 * An in-process nudge: the outbox writer calls `signalOutboxWrite()` when it builds an event's
 * INSERT, and the dispatcher listens, so an event written by this process is dispatched at once
 * instead of at the next poll. The signal fires before the transaction commits: a listener waits
 * a moment and polls, and the regular poll picks up anything still uncommitted then. Other
 * instances learn of events through their own poll. Process-wide on purpose: several apps in one
 * process (tests) just poll once more.
 */
type Listener = () => void;
const listeners = new Set<Listener>();

export function signalOutboxWrite(): void {
  for (const listener of listeners) listener();
}

/** Answers a function that removes the listener. */
export function onOutboxWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

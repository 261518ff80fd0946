/**
 * Reads made once per batch of outbox events, for its consumers: a batch's events often concern
 * the same people and projects (a burst of one link's downloads), so each read is shared.
 */
export class BatchReads {
  private readonly made = new Map<string, Promise<unknown>>();

  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    if (!this.made.has(key)) this.made.set(key, read());
    return this.made.get(key) as Promise<T>;
  }
}

import { describe, expect, it } from 'vitest';
import type { Transactions, Tx } from '../database/transactions.js';
import type { OutboxEvent } from './entities/outbox-event.entity.js';
import { OutboxRepository } from './outbox.repository.js';

describe('OutboxRepository', () => {
  it('writes an event saved searches cannot act on as already matched', async () => {
    const rows: OutboxEvent[] = [];
    const tx = { getRepository: () => ({ insert: async (row: OutboxEvent) => void rows.push(row) }) } as unknown as Tx;
    const outbox = new OutboxRepository({ afterCommit: () => true } as unknown as Transactions);
    const at = new Date('2026-11-28T08:00:00.000Z');
    const base = { actorId: 'a', projectId: 'p', subjectUserId: null, payload: {} };
    await outbox.append(tx, { ...base, type: 'document.updated', documentId: 'd' }, at);
    await outbox.append(tx, { ...base, type: 'share.accessed', documentId: 'd' }, at);
    await outbox.append(tx, { ...base, type: 'document.updated', documentId: null }, at);
    expect(rows.map((row) => row.searchesMatchedAt)).toEqual([null, at, at]);
    expect(rows.map((row) => row.dispatchedAt)).toEqual([null, null, null]);
  });
});

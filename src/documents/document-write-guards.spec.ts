import { describe, expect, it } from 'vitest';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import type { Tx } from '../database/transactions.js';
import type { ChangeDescription } from './document-change.js';
import { DocumentWriteGuards } from './document-write-guards.js';
import type { Document } from './entities/document.entity.js';

const tx = {} as Tx;
const document = { id: 'd1' } as Document;
const change = { action: 'updated', event: 'document.updated', values: {} } as ChangeDescription;
const user = { id: 'u1' } as AuthenticatedUser;

describe('DocumentWriteGuards', () => {
  it('asks every registered guard, in order, and stops at the first refusal', async () => {
    const guards = new DocumentWriteGuards();
    const asked: string[] = [];
    guards.register({ beforeChange: async () => void asked.push('lock') });
    guards.register({});
    guards.register({
      beforeChange: async () => {
        asked.push('hold');
        throw new Error('refused');
      },
    });
    guards.register({ beforeChange: async () => void asked.push('never') });
    await expect(guards.beforeChange(tx, document, change, user)).rejects.toThrow('refused');
    expect(asked).toEqual(['lock', 'hold']);
  });

  it('asks about removals only when there is something to remove', async () => {
    const guards = new DocumentWriteGuards();
    const asked: string[][] = [];
    guards.register({ beforeRemoval: async (_tx, ids) => void asked.push(ids) });
    await guards.beforeRemoval(tx, []);
    await guards.beforeRemoval(tx, ['d1', 'd2']);
    expect(asked).toEqual([['d1', 'd2']]);
  });
});

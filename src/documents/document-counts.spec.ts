import { describe, expect, it, vi } from 'vitest';
import type { EntityManager } from 'typeorm';
import { DocumentCounts } from './document-counts.repository.js';
import type { DocumentStatus } from './entities/document.entity.js';

const doc = (fields: { status?: DocumentStatus; deletedAt?: Date | null } = {}) => ({
  projectId: 'p',
  uploadedBy: 'u',
  status: 'draft' as DocumentStatus,
  documentTypeId: 't',
  deletedAt: null as Date | null,
  ...fields,
});

function manager(type: string) {
  const query = vi.fn(async () => []);
  return { query, tx: { query, connection: { options: { type } } } as unknown as EntityManager };
}

describe('DocumentCounts.move', () => {
  it('moves a status change between the keyed rows only (the rows over any status and type stay)', async () => {
    const { query, tx } = manager('mysql');
    await new DocumentCounts().move(tx, [{ before: doc(), after: doc({ status: 'in_review' }) }]);
    const [sql, parameters] = query.mock.calls[0] as unknown as [string, unknown[]];
    expect(sql).toMatch(/ON DUPLICATE KEY UPDATE total = total \+ VALUES\(total\)$/);
    expect(parameters).toEqual(
      [
        ['p', '', 'draft', 't', -1],
        ['p', '', 'in_review', 't', 1],
        ['p', 'u', 'draft', 't', -1],
        ['p', 'u', 'in_review', 't', 1],
      ].flat(),
    );
  });

  it('adds four rows for a create, takes them away for a trash, and writes nothing for a change outside its keys', async () => {
    const { query, tx } = manager('better-sqlite3');
    const trashed = doc({ deletedAt: new Date() });
    await new DocumentCounts().move(tx, [{ before: null, after: doc() }]);
    await new DocumentCounts().move(tx, [{ before: doc(), after: trashed }]);
    await new DocumentCounts().move(tx, [
      { before: doc(), after: doc() },
      { before: trashed, after: null },
    ]);
    expect(query).toHaveBeenCalledTimes(2);
    const deltas = query.mock.calls.map((call) =>
      (call as unknown as [string, unknown[]])[1].filter((_, i) => i % 5 === 4),
    );
    expect(deltas).toEqual([
      [1, 1, 1, 1],
      [-1, -1, -1, -1],
    ]);
    expect((query.mock.calls[0] as unknown as [string])[0]).toMatch(
      /ON CONFLICT .* DO UPDATE SET total = total \+ excluded.total$/,
    );
  });
});

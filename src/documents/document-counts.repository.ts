import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Document } from './entities/document.entity.js';

type Counted = Pick<Document, 'projectId' | 'uploadedBy' | 'status' | 'documentTypeId' | 'deletedAt'>;

const KEY_COLUMNS = ['projectId', 'uploadedBy', 'status', 'documentTypeId'] as const;

/**
 * The document_counts rows a document adds to (none in the trash): its project's over every
 * uploader (uploadedBy '') and its uploader's, each by its status and type and over any (status
 * and type ''), so that a total without those filters reads one row per project.
 */
function keysOf(document: Counted | null): string[][] {
  if (!document || document.deletedAt) return [];
  const { projectId, uploadedBy, status, documentTypeId } = document;
  return [
    [projectId, '', status, documentTypeId],
    [projectId, '', '', ''],
    [projectId, uploadedBy, status, documentTypeId],
    [projectId, uploadedBy, '', ''],
  ];
}

/**
 * document_counts (the list's totals, see DocumentSearchRepository): every write that creates,
 * trashes, restores, re-statuses or removes a document moves its counts here, in its transaction.
 */
@Injectable()
export class DocumentCounts {
  /**
   * Each document moves from its `before` state to its `after` one (null: absent), inside the
   * transaction `tx` of the write (the seed's and tests' direct inserts call it too).
   */
  async move(tx: EntityManager, moves: readonly { before: Counted | null; after: Counted | null }[]): Promise<void> {
    const deltas = new Map<string, number>();
    const add = (document: Counted | null, delta: number) => {
      for (const key of keysOf(document)) {
        const id = JSON.stringify(key);
        deltas.set(id, (deltas.get(id) ?? 0) + delta);
      }
    };
    for (const { before, after } of moves) {
      add(before, -1);
      add(after, 1);
    }
    // Sorted, so concurrent writers lock the rows in one order (no deadlock between two of them).
    const rows = [...deltas].filter(([, delta]) => delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (rows.length === 0) return;
    const upsert =
      tx.connection.options.type === 'better-sqlite3'
        ? `ON CONFLICT (${KEY_COLUMNS.join(', ')}) DO UPDATE SET total = total + excluded.total`
        : 'ON DUPLICATE KEY UPDATE total = total + VALUES(total)';
    await tx.query(
      `INSERT INTO document_counts (${KEY_COLUMNS.join(', ')}, total) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')} ${upsert}`,
      rows.flatMap(([key, delta]) => [...(JSON.parse(key) as string[]), delta]),
    );
  }
}

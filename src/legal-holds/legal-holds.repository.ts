import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import type { Tx } from '../database/transactions.js';
import { Document } from '../documents/entities/document.entity.js';
import { Project } from '../projects/entities/project.entity.js';
import { LegalHoldDocument } from './entities/legal-hold-document.entity.js';
import { LegalHold } from './entities/legal-hold.entity.js';

/** A held document as a hold's listing shows it. */
/** A hold with (the first of) the documents it covers. */
export interface HoldWithDocuments {
  hold: LegalHold;
  documents: HeldDocument[];
  documentCount: number;
}

export interface HeldDocument {
  id: string;
  title: string;
  projectId: string;
  trashed: boolean;
}

/** A hold that covers a document, as a refusal names it. */
export interface CoveringHold {
  documentId: string;
  holdId: string;
  holdName: string;
}

/** Every statement of legal holds: the holds, the documents they name, and which holds cover a document. */
@Injectable()
export class LegalHoldsRepository {
  constructor(@InjectRepository(LegalHold) private readonly holds: Repository<LegalHold>) {}

  async insert(tx: Tx, hold: LegalHold, documentIds: string[]): Promise<void> {
    await tx.getRepository(LegalHold).insert(hold);
    if (documentIds.length) {
      await tx
        .getRepository(LegalHoldDocument)
        .insert(documentIds.map((documentId) => ({ holdId: hold.id, documentId })));
    }
  }

  /** Removes the hold (its document rows cascade); false when there was none. */
  async delete(tx: Tx, id: string): Promise<LegalHold | null> {
    const hold = await tx.getRepository(LegalHold).findOneBy({ id });
    if (!hold) return null;
    await tx.getRepository(LegalHoldDocument).delete({ holdId: id });
    await tx.getRepository(LegalHold).delete({ id });
    return hold;
  }

  list(): Promise<LegalHold[]> {
    return this.holds.find({ order: { createdAt: 'DESC', id: 'DESC' } });
  }

  find(id: string): Promise<LegalHold | null> {
    return this.holds.findOneBy({ id });
  }

  /** The ids among `ids` that name an existing document (live or in the trash). */
  async existingDocuments(tx: Tx, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await tx.getRepository(Document).find({ select: { id: true }, where: { id: In(ids) } });
    return new Set(rows.map((row) => row.id));
  }

  projectExists(tx: Tx, projectId: string): Promise<boolean> {
    return tx.getRepository(Project).existsBy({ id: projectId });
  }

  /**
   * The documents a hold covers: those it names and, for a project hold, every document of the
   * project; by title, at most `limit`, and how many there are.
   */
  async documentsOf(hold: LegalHold, limit: number): Promise<{ documents: HeldDocument[]; total: number }> {
    const query = this.holds.manager
      .getRepository(Document)
      .createQueryBuilder('d')
      .select(['d.id', 'd.title', 'd.projectId', 'd.deletedAt'])
      .where('d.id IN (SELECT hd.documentId FROM legal_hold_documents hd WHERE hd.holdId = :holdId)', {
        holdId: hold.id,
      });
    if (hold.projectId !== null) query.orWhere('d.projectId = :projectId', { projectId: hold.projectId });
    const [rows, total] = await query.orderBy('d.title', 'ASC').addOrderBy('d.id', 'ASC').take(limit).getManyAndCount();
    return {
      documents: rows.map((row) => ({
        id: row.id,
        title: row.title,
        projectId: row.projectId,
        trashed: row.deletedAt !== null,
      })),
      total,
    };
  }

  /** For each of `documentIds` under a hold, one hold that covers it (by name, the oldest hold first). */
  async covering(tx: Tx, documentIds: string[]): Promise<CoveringHold[]> {
    if (documentIds.length === 0) return [];
    const rows = await tx
      .getRepository(Document)
      .createQueryBuilder('d')
      .innerJoin(
        LegalHold,
        'h',
        '(h.projectId = d.projectId OR EXISTS (SELECT 1 FROM legal_hold_documents hd WHERE hd.holdId = h.id AND hd.documentId = d.id))',
      )
      .select(['d.id AS documentId', 'h.id AS holdId', 'h.name AS holdName'])
      .where('d.id IN (:...documentIds)', { documentIds })
      .orderBy('h.createdAt', 'ASC')
      .getRawMany<CoveringHold>();
    const first = new Map<string, CoveringHold>();
    for (const row of rows) if (!first.has(row.documentId)) first.set(row.documentId, row);
    return [...first.values()];
  }
}

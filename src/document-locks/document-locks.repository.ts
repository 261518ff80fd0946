import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { Tx } from '../database/transactions.js';
import { User } from '../users/entities/user.entity.js';
import { DocumentLock } from './entities/document-lock.entity.js';

/** A lock row with its holder's username (for the 423 answer and GET). */
export type HeldLock = DocumentLock & { holderName: string };

@Injectable()
export class DocumentLocksRepository {
  constructor(@InjectRepository(DocumentLock) private readonly locks: Repository<DocumentLock>) {}

  /** The document's lock row (expired or not); `forUpdate` in a transaction locks it. */
  async find(documentId: string, tx?: Tx, { forUpdate = false } = {}): Promise<HeldLock | null> {
    const query = (tx ? tx.getRepository(DocumentLock) : this.locks)
      .createQueryBuilder('l')
      .innerJoin(User, 'u', 'u.id = l.holderId')
      .addSelect('u.username', 'holderName')
      .where('l.documentId = :documentId', { documentId });
    if (forUpdate && tx && tx.connection.options.type !== 'better-sqlite3') query.setLock('pessimistic_write');
    const { entities, raw } = await query.getRawAndEntities<{ holderName: string }>();
    const [lock] = entities;
    return lock ? Object.assign(lock, { holderName: raw[0].holderName }) : null;
  }

  /** Writes the lock, replacing any row the document had. */
  async put(tx: Tx, lock: DocumentLock): Promise<void> {
    const locks = tx.getRepository(DocumentLock);
    await locks.delete({ documentId: lock.documentId });
    await locks.insert(lock);
  }

  async remove(tx: Tx, documentId: string): Promise<void> {
    await tx.getRepository(DocumentLock).delete({ documentId });
  }
}

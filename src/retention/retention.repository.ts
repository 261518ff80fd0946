import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Not, Repository } from 'typeorm';
import type { Tx } from '../database/transactions.js';
import { DocumentType } from '../document-types/entities/document-type.entity.js';
import { DocumentHistory } from '../documents/entities/document-history.entity.js';
import { Document } from '../documents/entities/document.entity.js';
import type { RetentionPolicy } from '../document-types/retention-policy.js';
import { RetentionApplication } from './entities/retention-application.entity.js';

/** A document whose retention time has come. */
export interface RetentionCandidate {
  id: string;
  title: string;
  projectId: string;
}

/**
 * Every statement of retention: the types that declare it, the documents whose time has come
 * (read from the documents feature's tables, never written), and the record of each application.
 */
@Injectable()
export class RetentionRepository {
  constructor(
    @InjectRepository(RetentionApplication) private readonly applications: Repository<RetentionApplication>,
  ) {}

  typesWithRetention(): Promise<DocumentType[]> {
    return this.applications.manager
      .getRepository(DocumentType)
      .find({ where: { retentionDays: Not(IsNull()), retentionSetBy: Not(IsNull()) }, order: { id: 'ASC' } });
  }

  /**
   * Documents of the type, by id after `afterId`, not yet acted on, whose reference time is at or
   * before `cutoff`: created → createdAt; published/archived → while in that status, the time of
   * its last status change. archive applies to published documents only; archive and trash to
   * live ones; purge also to documents in the trash.
   */
  async candidates(
    typeId: string,
    policy: RetentionPolicy,
    cutoff: Date,
    afterId: string,
    limit: number,
  ): Promise<RetentionCandidate[]> {
    const documents = this.applications.manager.getRepository(Document);
    const query = documents
      .createQueryBuilder('d')
      .select(['d.id', 'd.title', 'd.projectId'])
      .where('d.documentTypeId = :typeId', { typeId })
      .andWhere('d.id > :afterId', { afterId })
      .andWhere(`NOT EXISTS (SELECT 1 FROM retention_applications r WHERE r.documentId = d.id)`);
    if (policy.action !== 'purge') query.andWhere('d.deletedAt IS NULL');
    if (policy.action === 'archive') query.andWhere("d.status = 'published'");
    if (policy.from === 'created') {
      query.andWhere('d.createdAt <= :cutoff', { cutoff: this.stored(documents, 'createdAt', cutoff) });
    } else {
      const entered = query
        .subQuery()
        .select('MAX(h.changedAt)')
        .from(DocumentHistory, 'h')
        .where('h.documentId = d.id')
        .andWhere("h.action = 'status_changed'")
        .getQuery();
      query
        .andWhere('d.status = :from', { from: policy.from })
        .andWhere(`${entered} <= :cutoff`, { cutoff: this.stored(documents, 'createdAt', cutoff) });
    }
    const rows = await query.orderBy('d.id', 'ASC').limit(limit).getMany();
    return rows.map((row) => ({ id: row.id, title: row.title, projectId: row.projectId }));
  }

  async record(tx: Tx, application: RetentionApplication): Promise<void> {
    await tx.getRepository(RetentionApplication).insert(application);
  }

  /** A time as a datetime column stores it, for comparisons in a WHERE clause. */
  private stored(repository: Repository<Document>, property: string, at: Date): unknown {
    const column = repository.metadata.findColumnWithPropertyName(property)!;
    return repository.manager.connection.driver.preparePersistentValue(at, column);
  }
}

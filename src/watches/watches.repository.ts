import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { Transactions } from '../database/transactions.js';
import { Document } from '../documents/entities/document.entity.js';
import { Project } from '../projects/entities/project.entity.js';
import { DocumentWatch, type DocumentWatchState } from './entities/document-watch.entity.js';
import { ProjectWatch } from './entities/project-watch.entity.js';

/** How many watches of each kind GET /api/auth/me/watches lists. */
export const WATCHES_LISTED = 1000;

export interface DocumentWatchRow {
  documentId: string;
  title: string;
  state: DocumentWatchState;
  createdAt: Date;
}

export interface ProjectWatchRow {
  projectId: string;
  name: string;
  createdAt: Date;
}

/** Every statement about watches and mutes; the dispatcher reads who watches and mutes through it. */
@Injectable()
export class WatchesRepository {
  private readonly documentWatches: Repository<DocumentWatch>;
  private readonly projectWatches: Repository<ProjectWatch>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
  ) {
    this.documentWatches = dataSource.getRepository(DocumentWatch);
    this.projectWatches = dataSource.getRepository(ProjectWatch);
  }

  /** Sets the user's state on the document (watching or muted), replacing the other. */
  async setDocumentState(documentId: string, userId: string, state: DocumentWatchState, at: Date): Promise<void> {
    await this.transactions.run((tx) =>
      tx
        .getRepository(DocumentWatch)
        .upsert({ documentId, userId, state, createdAt: at }, { conflictPaths: ['documentId', 'userId'] }),
    );
  }

  /** Removes the user's row on the document only if it is in `state` (unwatch does not unmute). */
  async clearDocumentState(documentId: string, userId: string, state: DocumentWatchState): Promise<void> {
    await this.transactions.run((tx) => tx.delete(DocumentWatch, { documentId, userId, state }));
  }

  async watchProject(projectId: string, userId: string, at: Date): Promise<void> {
    await this.transactions.run((tx) =>
      tx.getRepository(ProjectWatch).upsert({ projectId, userId, createdAt: at }, ['projectId', 'userId']),
    );
  }

  async unwatchProject(projectId: string, userId: string): Promise<void> {
    await this.transactions.run((tx) => tx.delete(ProjectWatch, { projectId, userId }));
  }

  /** The users watching the document (state `watching`). */
  async documentWatchers(documentId: string): Promise<string[]> {
    const rows = await this.documentWatches.find({
      select: { userId: true },
      where: { documentId, state: 'watching' },
    });
    return rows.map((row) => row.userId);
  }

  /** The users who muted the document. */
  async documentMuters(documentId: string): Promise<string[]> {
    const rows = await this.documentWatches.find({ select: { userId: true }, where: { documentId, state: 'muted' } });
    return rows.map((row) => row.userId);
  }

  async projectWatchers(projectId: string): Promise<string[]> {
    const rows = await this.projectWatches.find({ select: { userId: true }, where: { projectId } });
    return rows.map((row) => row.userId);
  }

  /** The user's document watches and mutes with the documents' titles, newest first. */
  documentsOf(userId: string): Promise<DocumentWatchRow[]> {
    return this.documentWatches
      .createQueryBuilder('w')
      .innerJoin(Document, 'd', 'd.id = w.documentId')
      .select(['w.documentId AS documentId', 'd.title AS title', 'w.state AS state', 'w.createdAt AS createdAt'])
      .where('w.userId = :userId', { userId })
      .orderBy('w.createdAt', 'DESC')
      .addOrderBy('w.documentId', 'DESC')
      .limit(WATCHES_LISTED)
      .getRawMany<DocumentWatchRow>()
      .then((rows) => rows.map((row) => ({ ...row, createdAt: toDate(row.createdAt) })));
  }

  /** The user's project watches with the projects' names, newest first. */
  projectsOf(userId: string): Promise<ProjectWatchRow[]> {
    return this.projectWatches
      .createQueryBuilder('w')
      .innerJoin(Project, 'p', 'p.id = w.projectId')
      .select(['w.projectId AS projectId', 'p.name AS name', 'w.createdAt AS createdAt'])
      .where('w.userId = :userId', { userId })
      .orderBy('w.createdAt', 'DESC')
      .addOrderBy('w.projectId', 'DESC')
      .limit(WATCHES_LISTED)
      .getRawMany<ProjectWatchRow>()
      .then((rows) => rows.map((row) => ({ ...row, createdAt: toDate(row.createdAt) })));
  }
}

/** Raw datetime values: a Date on MySQL, text ("YYYY-MM-DD HH:MM:SS.mmm", UTC) on SQLite. */
function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(`${value.replace(' ', 'T')}Z`);
}

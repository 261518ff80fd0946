import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { Clock } from '../common/time/clock.js';
import { DocumentsService } from '../documents/documents.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import type { DocumentWatchState } from './entities/document-watch.entity.js';
import { WatchesRepository, type DocumentWatchRow, type ProjectWatchRow } from './watches.repository.js';

/**
 * Watching and muting: only a reader of the document (or one who sees the project) may watch it
 * (else 404, as a read would answer); every change is idempotent.
 */
@Injectable()
export class WatchesService {
  constructor(
    private readonly watches: WatchesRepository,
    private readonly documents: DocumentsService,
    private readonly projects: ProjectsService,
    private readonly clock: Clock,
  ) {}

  /** Watching replaces a mute and muting a watch: a user has one state per document. */
  async setDocumentState(documentId: string, state: DocumentWatchState, user: AuthenticatedUser): Promise<void> {
    await this.documents.readableAccess(documentId, user);
    await this.watches.setDocumentState(documentId, user.id, state, this.clock.now());
  }

  async clearDocumentState(documentId: string, state: DocumentWatchState, user: AuthenticatedUser): Promise<void> {
    await this.documents.readableAccess(documentId, user);
    await this.watches.clearDocumentState(documentId, user.id, state);
  }

  async watchProject(projectId: string, user: AuthenticatedUser): Promise<void> {
    await this.projects.get(projectId, user);
    await this.watches.watchProject(projectId, user.id, this.clock.now());
  }

  async unwatchProject(projectId: string, user: AuthenticatedUser): Promise<void> {
    await this.projects.get(projectId, user);
    await this.watches.unwatchProject(projectId, user.id);
  }

  async of(userId: string): Promise<{ documents: DocumentWatchRow[]; projects: ProjectWatchRow[] }> {
    const [documents, projects] = await Promise.all([
      this.watches.documentsOf(userId),
      this.watches.projectsOf(userId),
    ]);
    return { documents, projects };
  }
}

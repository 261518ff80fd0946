import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { hydrateRow } from '../database/raw-rows.js';
import { DocumentType } from '../document-types/entities/document-type.entity.js';
import { ProjectMember } from '../projects/entities/project-member.entity.js';
import { Project } from '../projects/entities/project.entity.js';
import type { ProjectRole } from '../projects/project-role.js';
import { DocumentVersion } from './entities/document-version.entity.js';
import { Document } from './entities/document.entity.js';

/** Where a new document would go, as the create rules need it. */
export interface CreateTarget {
  projectExists: boolean;
  /** The caller's role in the project; null when not a member. */
  projectRole: ProjectRole | null;
  documentTypeExists: boolean;
}

/** The reads of document files: where a new document goes, its versions. (Writes: DocumentsRepository.) */
@Injectable()
export class DocumentVersionsRepository {
  private withDocumentSql: string | undefined;

  constructor(private readonly dataSource: DataSource) {}

  async createTarget(userId: string, projectId: string, documentTypeId: string): Promise<CreateTarget> {
    const manager = this.dataSource.manager;
    const [projectExists, member, documentTypeExists] = await Promise.all([
      manager.existsBy(Project, { id: projectId }),
      manager.findOneBy(ProjectMember, { projectId, userId }),
      manager.existsBy(DocumentType, { id: documentTypeId }),
    ]);
    return { projectExists, projectRole: member?.role ?? null, documentTypeExists };
  }

  findVersion(documentId: string, version: number): Promise<DocumentVersion | null> {
    return this.dataSource.manager.findOneBy(DocumentVersion, { documentId, version });
  }

  /**
   * A document not in the trash and its version `version` (the current one when null), in one
   * statement of fixed text (a share link's download reads this on every request); null when
   * either is missing.
   */
  async findWithDocument(
    documentId: string,
    version: number | null,
  ): Promise<{ document: Document; version: DocumentVersion } | null> {
    const [row] = await this.dataSource.query<Record<string, unknown>[]>(this.withDocumentStatement(), [
      version,
      documentId,
    ]);
    if (!row) return null;
    return {
      document: hydrateRow(this.dataSource.getRepository(Document), row),
      version: hydrateRow(this.dataSource.getRepository(DocumentVersion), row, 'v_'),
    };
  }

  private withDocumentStatement(): string {
    if (this.withDocumentSql === undefined) {
      const { driver } = this.dataSource;
      const versions = this.dataSource.getMetadata(DocumentVersion);
      const columns = versions.columns
        .map(({ databaseName }) => `v.${driver.escape(databaseName)} AS ${driver.escape(`v_${databaseName}`)}`)
        .join(', ');
      this.withDocumentSql =
        `SELECT d.*, ${columns} FROM ${driver.escape(this.dataSource.getMetadata(Document).tableName)} d ` +
        `JOIN ${driver.escape(versions.tableName)} v ON v.documentId = d.id AND v.version = COALESCE(?, d.currentVersion) ` +
        'WHERE d.id = ? AND d.deletedAt IS NULL';
    }
    return this.withDocumentSql;
  }

  /** One page of a document's versions, newest first, and how many there are. */
  async list(
    documentId: string,
    offset: number,
    limit: number,
  ): Promise<{ versions: DocumentVersion[]; total: number }> {
    const [versions, total] = await this.dataSource.manager.findAndCount(DocumentVersion, {
      where: { documentId },
      order: { version: 'DESC' },
      skip: offset,
      take: limit,
    });
    return { versions, total };
  }
}

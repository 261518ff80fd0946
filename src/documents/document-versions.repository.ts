import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DocumentType } from '../document-types/entities/document-type.entity.js';
import { ProjectMember } from '../projects/entities/project-member.entity.js';
import { Project } from '../projects/entities/project.entity.js';
import type { ProjectRole } from '../projects/project-role.js';
import { DocumentVersion } from './entities/document-version.entity.js';

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

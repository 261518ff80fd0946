import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ProjectMember } from '../projects/entities/project-member.entity.js';
import { isProjectRole, type ProjectRole } from '../projects/project-role.js';
import { Role } from '../users/entities/role.entity.js';
import { UserRole } from '../users/entities/user-role.entity.js';
import { User } from '../users/entities/user.entity.js';
import type { Tx } from '../database/transactions.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentParticipant } from './entities/document-participant.entity.js';
import { Document } from './entities/document.entity.js';

/** A participant as the read rule sees them: their role in the document's project and their roles' permissions. */
export interface ParticipantAccess {
  user: AuthenticatedUser;
  projectRole: ProjectRole | null;
}

/**
 * Who hears of a document: those of its participants (uploader, everyone who changed it) who may
 * read it now, by the same rule as every read (DocumentAccessPolicy.canRead).
 */
export function currentReaders(
  policy: DocumentAccessPolicy,
  document: Pick<Document, 'uploadedBy'>,
  participants: readonly ParticipantAccess[],
): string[] {
  return participants
    .filter(({ user, projectRole }) => policy.canRead(user, { document, projectRole }))
    .map(({ user }) => user.id);
}

/** What other features ask about a document's people. */
@Injectable()
export class DocumentParticipants {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policy: DocumentAccessPolicy,
  ) {}

  /**
   * The ids of the document's participants who may still read it (none for an unknown document):
   * its uploader and everyone who changed or commented on it, read off document_participants.
   */
  async of(documentId: string): Promise<string[]> {
    return this.readers(documentId);
  }

  /** Which of `userIds` may read the document now (none for an unknown document). */
  readersAmong(documentId: string, userIds: readonly string[]): Promise<string[]> {
    return userIds.length ? this.readers(documentId, userIds) : Promise.resolve([]);
  }

  /** Makes `userId` a participant, in the transaction of what made them one (idempotent). */
  async add(tx: Tx, documentId: string, userId: string): Promise<void> {
    await tx
      .createQueryBuilder()
      .insert()
      .into(DocumentParticipant)
      .values({ documentId, userId })
      .orIgnore()
      .execute();
  }

  private async readers(documentId: string, candidates?: readonly string[]): Promise<string[]> {
    const manager = this.dataSource.manager;
    const document = await manager.findOne(Document, {
      select: { id: true, uploadedBy: true, projectId: true },
      where: { id: documentId },
    });
    if (!document) return [];
    const query = candidates
      ? manager
          .createQueryBuilder(User, 'p')
          .select('p.id', 'userId')
          .leftJoin(ProjectMember, 'pm', 'pm.projectId = :projectId AND pm.userId = p.id', {
            projectId: document.projectId,
          })
          .where('p.id IN (:...candidates)', { candidates })
      : manager
          .createQueryBuilder(DocumentParticipant, 'p')
          .select('p.userId', 'userId')
          .leftJoin(ProjectMember, 'pm', 'pm.projectId = :projectId AND pm.userId = p.userId', {
            projectId: document.projectId,
          })
          .where('p.documentId = :documentId', { documentId });
    const rows = await query.addSelect('pm.role', 'projectRole').getRawMany<{ userId: string; projectRole: unknown }>();
    const byId = new Map(rows.map((row) => [row.userId, isProjectRole(row.projectRole) ? row.projectRole : null]));
    // Documents written before participants were rows still count their uploader.
    if (!candidates && !byId.has(document.uploadedBy)) byId.set(document.uploadedBy, null);
    const outsiders = [...byId].filter(([, role]) => role === null).map(([id]) => id);
    const roles = await this.rolesOf(outsiders);
    const participants = [...byId].map(([id, projectRole]) => ({
      user: { id, username: '', roles: roles.get(id) ?? [] },
      projectRole,
    }));
    return currentReaders(this.policy, document, participants);
  }

  /** The roles (with permissions) of users outside the project: documents:read lets them read it. */
  private async rolesOf(userIds: string[]): Promise<Map<string, AuthenticatedUser['roles']>> {
    const byUser = new Map<string, AuthenticatedUser['roles']>();
    if (userIds.length === 0) return byUser;
    const rows = await this.dataSource.manager
      .createQueryBuilder(UserRole, 'ur')
      .innerJoin(Role, 'r', 'r.id = ur.roleId')
      .select('ur.userId', 'userId')
      .addSelect('r.name', 'name')
      .addSelect('r.permissions', 'permissions')
      .where('ur.userId IN (:...userIds)', { userIds })
      .getRawMany<{ userId: string; name: string; permissions: string }>();
    for (const row of rows) {
      const list = byUser.get(row.userId) ?? [];
      list.push({ name: row.name, permissions: JSON.parse(row.permissions) as Record<string, string[]> });
      byUser.set(row.userId, list);
    }
    return byUser;
  }
}

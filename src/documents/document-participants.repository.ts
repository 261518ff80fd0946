import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import type { Tx } from '../database/transactions.js';
import { ProjectMember } from '../projects/entities/project-member.entity.js';
import { isProjectRole, type ProjectRole } from '../projects/project-role.js';
import { Role } from '../users/entities/role.entity.js';
import { UserRole } from '../users/entities/user-role.entity.js';
import { User } from '../users/entities/user.entity.js';
import { DocumentParticipant } from './entities/document-participant.entity.js';
import { Document } from './entities/document.entity.js';

/** Every statement about a document's people: participants, their project roles and role permissions. */
@Injectable()
export class DocumentParticipantsRepository {
  constructor(private readonly dataSource: DataSource) {}

  findDocument(documentId: string): Promise<Pick<Document, 'id' | 'uploadedBy' | 'projectId'> | null> {
    return this.dataSource.manager.findOne(Document, {
      select: { id: true, uploadedBy: true, projectId: true },
      where: { id: documentId },
    });
  }

  /** The participants (or, given `candidates`, those users) with their role in the project. */
  async withProjectRoles(
    document: Pick<Document, 'id' | 'projectId'>,
    candidates?: readonly string[],
  ): Promise<Map<string, ProjectRole | null>> {
    const manager = this.dataSource.manager;
    const projectId = document.projectId;
    const query = candidates
      ? manager
          .createQueryBuilder(User, 'p')
          .select('p.id', 'userId')
          .leftJoin(ProjectMember, 'pm', 'pm.projectId = :projectId AND pm.userId = p.id', { projectId })
          .where('p.id IN (:...candidates)', { candidates })
      : manager
          .createQueryBuilder(DocumentParticipant, 'p')
          .select('p.userId', 'userId')
          .leftJoin(ProjectMember, 'pm', 'pm.projectId = :projectId AND pm.userId = p.userId', { projectId })
          .where('p.documentId = :documentId', { documentId: document.id });
    const rows = await query.addSelect('pm.role', 'projectRole').getRawMany<{ userId: string; projectRole: unknown }>();
    return new Map(rows.map((row) => [row.userId, isProjectRole(row.projectRole) ? row.projectRole : null]));
  }

  /** The roles (with permissions) of these users. */
  async rolesOf(userIds: string[]): Promise<Map<string, AuthenticatedUser['roles']>> {
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
}

import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import type { Tx } from '../database/transactions.js';
import type { ProjectRole } from '../projects/project-role.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentParticipantsRepository } from './document-participants.repository.js';
import type { Document } from './entities/document.entity.js';

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
    private readonly participants: DocumentParticipantsRepository,
    private readonly policy: DocumentAccessPolicy,
  ) {}

  /**
   * The ids of the document's participants who may still read it (none for an unknown document):
   * its uploader and everyone who changed or commented on it, read off document_participants.
   */
  of(documentId: string): Promise<string[]> {
    return this.readers(documentId);
  }

  /** Which of `userIds` may read the document now (none for an unknown document). */
  readersAmong(documentId: string, userIds: readonly string[]): Promise<string[]> {
    return userIds.length ? this.readers(documentId, userIds) : Promise.resolve([]);
  }

  /** Makes `userId` a participant, in the transaction of what made them one (idempotent). */
  add(tx: Tx, documentId: string, userId: string): Promise<void> {
    return this.participants.add(tx, documentId, userId);
  }

  private async readers(documentId: string, candidates?: readonly string[]): Promise<string[]> {
    const document = await this.participants.findDocument(documentId);
    if (!document) return [];
    const byId = await this.participants.withProjectRoles(document, candidates);
    // Documents written before participants were rows still count their uploader.
    if (!candidates && !byId.has(document.uploadedBy)) byId.set(document.uploadedBy, null);
    const outsiders = [...byId].filter(([, role]) => role === null).map(([id]) => id);
    const roles = await this.participants.rolesOf(outsiders);
    const people = [...byId].map(([id, projectRole]) => ({
      user: { id, username: '', roles: roles.get(id) ?? [] },
      projectRole,
    }));
    return currentReaders(this.policy, document, people);
  }
}

import { Injectable } from '@nestjs/common';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import type { ProjectRole } from '../projects/project-role.js';
import type { Document } from './entities/document.entity.js';

/** A document as the policy sees it, with the caller's role in its project (null: not a member). */
export interface DocumentAccess {
  document: Pick<Document, 'uploadedBy'>;
  projectRole: ProjectRole | null;
}

/**
 * The one place that decides who may do what with a document (issue 11's table):
 * - read (GET, content, versions, history): a member of its project, its uploader, or documents:read;
 *   anyone else is told the document does not exist (404), never 403;
 * - change (metadata, new version, submit for review): its uploader while a contributor or
 *   manager of the project, a project manager, or documents:update; delete likewise with
 *   documents:delete;
 * - publish / reject / archive: a project manager or documents:publish;
 * - purge (permanent delete): documents:purge.
 */
@Injectable()
export class DocumentAccessPolicy {
  canRead(user: AuthenticatedUser, { document, projectRole }: DocumentAccess): boolean {
    return projectRole !== null || document.uploadedBy === user.id || hasPermission(user, 'documents', 'read');
  }

  canChange(user: AuthenticatedUser, access: DocumentAccess): boolean {
    return this.ownsOrManages(user, access) || hasPermission(user, 'documents', 'update');
  }

  canDelete(user: AuthenticatedUser, access: DocumentAccess): boolean {
    return this.ownsOrManages(user, access) || hasPermission(user, 'documents', 'delete');
  }

  canPublish(user: AuthenticatedUser, { projectRole }: DocumentAccess): boolean {
    return projectRole === 'manager' || hasPermission(user, 'documents', 'publish');
  }

  canPurge(user: AuthenticatedUser): boolean {
    return hasPermission(user, 'documents', 'purge');
  }

  /** May this user create documents in a project where their role is `projectRole`? */
  canCreateIn(user: AuthenticatedUser, projectRole: ProjectRole | null): boolean {
    return projectRole === 'contributor' || projectRole === 'manager' || hasPermission(user, 'documents', 'create');
  }

  /** The document, if it exists and this user may read it; else 404, so its existence is not revealed. */
  readable(
    documentId: string,
    found: (DocumentAccess & { document: Document }) | null,
    user: AuthenticatedUser,
  ): Document {
    if (!found || !this.canRead(user, found)) {
      throw new ApiError('document_not_found', `No document has the id ${documentId}.`);
    }
    return found.document;
  }

  /** The document, if this user may change it (`what`: "change" or "add a version to"); 404 or 403 otherwise. */
  changeable(
    documentId: string,
    found: (DocumentAccess & { document: Document }) | null,
    user: AuthenticatedUser,
    what = 'change',
  ): Document {
    const document = this.readable(documentId, found, user);
    if (!this.canChange(user, found!)) {
      throw new ApiError(
        'forbidden',
        'Only the uploader (while a contributor of the project), a project manager or a user whose role ' +
          `grants documents:update may ${what} this document.`,
      );
    }
    return document;
  }

  private ownsOrManages(user: AuthenticatedUser, { document, projectRole }: DocumentAccess): boolean {
    if (projectRole === 'manager') return true;
    return document.uploadedBy === user.id && projectRole === 'contributor';
  }
}

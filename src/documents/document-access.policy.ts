import { Injectable } from '@nestjs/common';
import { hasPermission, type AuthenticatedUser } from '../auth/authenticated-user.js';
import type { Document } from './entities/document.entity.js';

/**
 * The one place that decides who may change a document: its uploader, or anyone holding a
 * role whose permissions include documents: ["update"].
 */
@Injectable()
export class DocumentAccessPolicy {
  canUpdate(user: AuthenticatedUser, document: Pick<Document, 'uploadedBy'>): boolean {
    return document.uploadedBy === user.id || hasPermission(user, 'documents', 'update');
  }
}

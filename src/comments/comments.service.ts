import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { codePointLength } from '../common/text/unicode.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../common/pagination/keyset-cursor.js';
import { Transactions } from '../database/transactions.js';
import { DocumentParticipants } from '../documents/document-participants.service.js';
import type { DocumentWithAccess } from '../documents/documents.repository.js';
import { DocumentsService } from '../documents/documents.service.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { CommentsRepository, type CommentWithAuthor } from './comments.repository.js';
import type { Comment } from './entities/comment.entity.js';
import { mentionedUsernames } from './mentions.js';

export interface CommentPage {
  comments: CommentWithAuthor[];
  total: number;
  nextCursor: string | null;
}

const EXCERPT_LENGTH = 140;

/** Comments on documents: readers read them, contributors write them, mentions notify readers. */
@Injectable()
export class CommentsService {
  constructor(
    private readonly comments: CommentsRepository,
    private readonly documents: DocumentsService,
    private readonly participants: DocumentParticipants,
    private readonly outbox: OutboxRepository,
    private readonly audit: AuditTrail,
    private readonly transactions: Transactions,
  ) {}

  async list(documentId: string, user: AuthenticatedUser, limit: number, cursor?: string): Promise<CommentPage> {
    await this.documents.readableAccess(documentId, user);
    const after = cursor === undefined ? undefined : decodeKeysetCursor(cursor);
    const [rows, total] = await Promise.all([
      this.comments.page(documentId, limit, after),
      this.comments.count(documentId),
    ]);
    const comments = rows.slice(0, limit);
    const last = comments.at(-1);
    const nextCursor = rows.length > limit && last ? encodeKeysetCursor({ at: last.createdAt, id: last.id }) : null;
    return { comments, total, nextCursor };
  }

  async create(
    documentId: string,
    body: string,
    user: AuthenticatedUser,
    audit: AuditContext,
  ): Promise<CommentWithAuthor> {
    const access = await this.documents.readableAccess(documentId, user);
    if (!canContribute(user, access)) {
      throw new ApiError(
        'forbidden',
        'Commenting needs the contributor or manager role in the project, or documents:update.',
      );
    }
    const mentioned = await this.mentionedReaders(documentId, body, user.id);
    const comment: Comment = {
      id: randomUUID(),
      documentId,
      authorId: user.id,
      body,
      createdAt: new Date(),
      editedAt: null,
    };
    const { document } = access;
    const payload = { title: document.title, commentId: comment.id, excerpt: excerpt(body) };
    await this.transactions.run(async (tx) => {
      await this.comments.insert(tx, comment);
      await this.participants.add(tx, documentId, user.id);
      await this.outbox.append(tx, {
        type: 'comment.created',
        actorId: user.id,
        projectId: document.projectId,
        documentId,
        subjectUserId: null,
        // The mentioned hear of it through their own event.
        payload: { ...payload, mentioned },
      });
      for (const userId of mentioned) {
        await this.outbox.append(tx, {
          type: 'comment.mentioned',
          actorId: user.id,
          projectId: document.projectId,
          documentId,
          subjectUserId: userId,
          payload,
        });
      }
      await this.audit.record(tx, audit, {
        action: 'comment.created',
        targetType: 'comment',
        targetId: comment.id,
        changes: { body: { from: null, to: body }, documentId: { from: null, to: documentId } },
      });
    });
    return this.get(comment.id);
  }

  async edit(id: string, body: string, user: AuthenticatedUser, audit: AuditContext): Promise<CommentWithAuthor> {
    const comment = await this.readable(id, user);
    if (comment.authorId !== user.id) throw new ApiError('forbidden', 'Only the author may edit a comment.');
    if (comment.body !== body) {
      await this.transactions.run(async (tx) => {
        await this.comments.updateBody(tx, id, body, new Date());
        await this.audit.record(tx, audit, {
          action: 'comment.edited',
          targetType: 'comment',
          targetId: id,
          changes: { body: { from: comment.body, to: body } },
        });
      });
    }
    return this.get(id);
  }

  async remove(id: string, user: AuthenticatedUser, audit: AuditContext): Promise<void> {
    const comment = await this.readable(id, user);
    const { projectRole } = await this.documents.readableAccess(comment.documentId, user);
    const allowed =
      comment.authorId === user.id || projectRole === 'manager' || hasPermission(user, 'documents', 'delete');
    if (!allowed) {
      throw new ApiError(
        'forbidden',
        'Only the author, a project manager or a holder of documents:delete may delete a comment.',
      );
    }
    await this.transactions.run(async (tx) => {
      await this.comments.delete(tx, id);
      await this.audit.record(tx, audit, {
        action: 'comment.deleted',
        targetType: 'comment',
        targetId: id,
        changes: { body: { from: comment.body, to: null }, documentId: { from: comment.documentId, to: null } },
      });
    });
  }

  /** The comment, if the caller can read its document; 404 comment_not_found otherwise (never 403). */
  private async readable(id: string, user: AuthenticatedUser): Promise<CommentWithAuthor> {
    const comment = await this.comments.findWithAuthor(id);
    if (!comment) throw notFound(id);
    try {
      await this.documents.readableAccess(comment.documentId, user);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw notFound(id);
      throw error;
    }
    return comment;
  }

  private async get(id: string): Promise<CommentWithAuthor> {
    const comment = await this.comments.findWithAuthor(id);
    if (!comment) throw notFound(id);
    return comment;
  }

  /** The ids of the users the body mentions who can read the document, the author excepted. */
  private async mentionedReaders(documentId: string, body: string, authorId: string): Promise<string[]> {
    const users = await this.comments.activeUsersNamed(mentionedUsernames(body));
    const candidates = users.map((user) => user.id).filter((id) => id !== authorId);
    return candidates.length ? this.participants.readersAmong(documentId, candidates) : [];
  }
}

/** Readers who may contribute: the project's contributors and managers, and holders of documents:update. */
export function canContribute(
  user: AuthenticatedUser,
  { projectRole }: Pick<DocumentWithAccess, 'projectRole'>,
): boolean {
  return projectRole === 'contributor' || projectRole === 'manager' || hasPermission(user, 'documents', 'update');
}

function excerpt(body: string): string {
  if (codePointLength(body) <= EXCERPT_LENGTH) return body;
  const points = Array.from(body);
  return `${points.slice(0, EXCERPT_LENGTH - 1).join('')}…`;
}

function notFound(id: string): ApiError {
  return new ApiError('comment_not_found', `No comment with id ${id} that you can read.`);
}

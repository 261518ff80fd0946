import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditTrail } from '../audit/audit-trail.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { DocumentParticipants } from '../documents/document-participants.service.js';
import { DocumentsService } from '../documents/documents.service.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { User } from '../users/entities/user.entity.js';
import { CommentsRepository } from './comments.repository.js';
import { CommentsService } from './comments.service.js';
import { Comment } from './entities/comment.entity.js';

const audit = { actorId: 'alice', ip: null, requestId: null };
const reader = (id: string, permissions: Record<string, string[]> = {}): AuthenticatedUser => ({
  id,
  username: id,
  roles: [{ name: 'user', permissions }],
});

describe('CommentsService (repositories mocked)', () => {
  let service: CommentsService;
  const comments = { findOne: vi.fn(), findBy: vi.fn(), countBy: vi.fn() };
  const users = { findBy: vi.fn() };
  const written = { insert: vi.fn(), update: vi.fn(), delete: vi.fn() };
  const tx = { getRepository: () => written } as unknown as Tx;
  const documents = { readableAccess: vi.fn() };
  const participants = { add: vi.fn(), readersAmong: vi.fn() };
  const outbox = { append: vi.fn() };
  const trail = { record: vi.fn() };
  const transactions = { run: vi.fn((work: (tx: Tx) => Promise<unknown>) => work(tx)) };

  const stored = (authorId: string, body = 'first words') => ({
    id: 'c1',
    documentId: 'd1',
    authorId,
    body,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    editedAt: null,
    author: { id: authorId, username: authorId },
  });
  const access = (projectRole: string | null) => ({
    document: { id: 'd1', projectId: 'p1', title: 'Plan' },
    projectRole,
  });

  beforeEach(async () => {
    vi.clearAllMocks();
    const module = await Test.createTestingModule({
      providers: [
        CommentsService,
        CommentsRepository,
        { provide: getRepositoryToken(Comment), useValue: comments },
        { provide: getRepositoryToken(User), useValue: users },
        { provide: DocumentsService, useValue: documents },
        { provide: DocumentParticipants, useValue: participants },
        { provide: OutboxRepository, useValue: outbox },
        { provide: AuditTrail, useValue: trail },
        { provide: Transactions, useValue: transactions },
      ],
    }).compile();
    service = module.get(CommentsService);
  });

  it('refuses a reader who may not contribute, writing nothing', async () => {
    documents.readableAccess.mockResolvedValue(access('viewer'));
    await expect(service.create('d1', 'hello', reader('vera'), audit)).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(transactions.run).not.toHaveBeenCalled();
  });

  it('stores a contributor comment with its event, one mention event per reader mentioned, and an audit event', async () => {
    documents.readableAccess.mockResolvedValue(access('contributor'));
    users.findBy.mockResolvedValue([{ id: 'bob' }, { id: 'carl' }, { id: 'alice' }]);
    participants.readersAmong.mockResolvedValue(['bob']);
    comments.findOne.mockResolvedValue(stored('alice', 'hi @bob @carl @alice'));
    await service.create('d1', 'hi @bob @carl @alice', reader('alice'), audit);
    expect(participants.readersAmong).toHaveBeenCalledWith('d1', ['bob', 'carl']);
    expect(written.insert).toHaveBeenCalledTimes(1);
    expect(outbox.append.mock.calls.map(([, event]) => [event.type, event.subjectUserId])).toEqual([
      ['comment.created', null],
      ['comment.mentioned', 'bob'],
    ]);
    expect(trail.record).toHaveBeenCalledWith(tx, audit, expect.objectContaining({ action: 'comment.created' }));
  });

  it('lets only the author edit, and writes nothing for an unchanged body', async () => {
    documents.readableAccess.mockResolvedValue(access('manager'));
    comments.findOne.mockResolvedValue(stored('alice'));
    await expect(service.edit('c1', 'new', reader('mara'), audit)).rejects.toMatchObject({ code: 'forbidden' });
    await service.edit('c1', 'first words', reader('alice'), audit);
    expect(transactions.run).not.toHaveBeenCalled();
    await service.edit('c1', 'second words', reader('alice'), audit);
    expect(written.update).toHaveBeenCalledWith({ id: 'c1' }, expect.objectContaining({ body: 'second words' }));
  });

  it('lets the author, a project manager or a holder of documents:delete delete, nobody else', async () => {
    comments.findOne.mockResolvedValue(stored('alice'));
    documents.readableAccess.mockResolvedValue(access('contributor'));
    await expect(service.remove('c1', reader('bob'), audit)).rejects.toBeInstanceOf(ApiError);
    await service.remove('c1', reader('alice'), audit);
    await service.remove('c1', reader('erin', { documents: ['delete'] }), audit);
    documents.readableAccess.mockResolvedValue(access('manager'));
    await service.remove('c1', reader('mara'), audit);
    expect(written.delete).toHaveBeenCalledTimes(3);
  });

  it('answers 404 comment_not_found, never 403, when the caller cannot read the document', async () => {
    comments.findOne.mockResolvedValue(stored('alice'));
    documents.readableAccess.mockRejectedValue(new ApiError('document_not_found', 'No such document.'));
    await expect(service.remove('c1', reader('nina'), audit)).rejects.toMatchObject({ code: 'comment_not_found' });
  });
});

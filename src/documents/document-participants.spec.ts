import { describe, expect, it } from 'vitest';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { documentChange } from './document-change.js';
import { currentReaders } from './document-participants.service.js';
import { Document } from './entities/document.entity.js';

const user = (id: string, permissions: Record<string, string[]> = {}): AuthenticatedUser => ({
  id,
  username: id,
  roles: [{ name: 'r', permissions }],
});

describe('currentReaders (who hears of a document)', () => {
  const policy = new DocumentAccessPolicy();
  const document = { uploadedBy: 'uploader' };

  it('keeps participants who may read the document now: members, its uploader, documents:read', () => {
    expect(
      currentReaders(policy, document, [
        { user: user('uploader'), projectRole: null },
        { user: user('member'), projectRole: 'viewer' },
        { user: user('auditor', { documents: ['read'] }), projectRole: null },
      ]),
    ).toEqual(['uploader', 'member', 'auditor']);
  });

  it('drops a participant who left the project and has no documents:read', () => {
    expect(currentReaders(policy, document, [{ user: user('carl'), projectRole: null }])).toEqual([]);
  });
});

describe('documentChange (the one builder of a change)', () => {
  const from = Object.assign(new Document(), {
    id: 'd1',
    projectId: 'p1',
    title: 'Old',
    rowVersion: 4,
    updatedAt: new Date(Date.now() + 60_000),
  });

  it('moves rowVersion by one and updatedAt strictly forward, and makes its author the history author', () => {
    const change = documentChange(from, user('carl'), {
      action: 'updated',
      event: 'document.updated',
      values: { title: 'New' },
    });
    expect(change.document).toMatchObject({ title: 'New', rowVersion: 5 });
    expect(change.document.updatedAt.getTime()).toBe(from.updatedAt.getTime() + 1);
    expect(change.history).toMatchObject({
      documentId: 'd1',
      changedBy: 'carl',
      rowVersion: 5,
      action: 'updated',
      changes: { title: { from: 'Old', to: 'New' } },
    });
    expect(change.event).toMatchObject({ type: 'document.updated', actorId: 'carl', documentId: 'd1' });
    expect(change.event.payload).toMatchObject({ title: 'New', actorName: 'carl' });
  });
});

import { describe, expect, it, vi } from 'vitest';
import type { OutboxEvent } from '../../events/entities/outbox-event.entity.js';
import { recipientsOf, type RecipientSources } from './recipient-rule.js';

type Event = Pick<OutboxEvent, 'type' | 'actorId' | 'projectId' | 'documentId' | 'subjectUserId' | 'payload'>;

const event = (fields: Partial<Event>): Event => ({
  type: 'document.updated',
  actorId: 'actor',
  projectId: 'p1',
  documentId: 'd1',
  subjectUserId: null,
  payload: {},
  ...fields,
});

/** Sources as mocked repositories answer them; `readers` and `active` decide the filters. */
function sources(overrides: {
  participants?: string[];
  watchers?: string[];
  muters?: string[];
  projectWatchers?: string[];
  members?: string[];
  readers?: string[];
  inactive?: string[];
}) {
  const readers = new Set(overrides.readers ?? ['p', 'w', 'pw', 'm1', 'm2', 'actor', 'mentioned', 'subject']);
  const inactive = new Set(overrides.inactive ?? []);
  return {
    participants: vi.fn(async () => overrides.participants ?? []),
    documentWatchers: vi.fn(async () => overrides.watchers ?? []),
    documentMuters: vi.fn(async () => overrides.muters ?? []),
    projectWatchers: vi.fn(async () => overrides.projectWatchers ?? []),
    projectMembers: vi.fn(async () => overrides.members ?? []),
    readersAmong: vi.fn(async (_documentId: string, ids: string[]) => ids.filter((id) => readers.has(id))),
    activeAmong: vi.fn(async (ids: string[]) => ids.filter((id) => !inactive.has(id))),
  } satisfies RecipientSources;
}

describe('recipientsOf (the dispatcher recipient rule)', () => {
  it('joins participants, document watchers and project watchers', async () => {
    const found = await recipientsOf(
      event({}),
      sources({ participants: ['p'], watchers: ['w'], projectWatchers: ['pw'] }),
    );
    expect(found.toSorted()).toEqual(['p', 'pw', 'w']);
  });

  it('adds the project members for document.created only', async () => {
    const from = sources({ members: ['m1', 'm2'] });
    await expect(recipientsOf(event({ type: 'document.created' }), from)).resolves.toEqual(['m1', 'm2']);
    await expect(recipientsOf(event({ type: 'document.updated' }), from)).resolves.toEqual([]);
  });

  it('leaves out who muted the document, whatever made them a candidate', async () => {
    const found = await recipientsOf(
      event({ type: 'document.created' }),
      sources({
        participants: ['p'],
        watchers: ['w'],
        projectWatchers: ['pw'],
        members: ['m1'],
        muters: ['p', 'pw', 'm1'],
      }),
    );
    expect(found).toEqual(['w']);
  });

  it('leaves out watchers and members who cannot read the document (participants come filtered)', async () => {
    const from = sources({ participants: ['p'], watchers: ['w', 'outsider'], projectWatchers: ['pw'], readers: ['w'] });
    await expect(recipientsOf(event({}), from)).resolves.toEqual(['p', 'w']);
    expect(from.readersAmong).toHaveBeenCalledWith('d1', ['w', 'outsider', 'pw']);
  });

  it('leaves out the actor, those told by an event of their own, and inactive users', async () => {
    const found = await recipientsOf(
      event({ payload: { mentioned: ['mentioned'], toldSeparately: ['pw'] } }),
      sources({ participants: ['p', 'actor'], watchers: ['w', 'mentioned'], projectWatchers: ['pw'], inactive: ['w'] }),
    );
    expect(found).toEqual(['p']);
  });

  it('an event about one user is for that user alone (not the actor, not inactive)', async () => {
    const from = sources({ participants: ['p'], watchers: ['w'] });
    await expect(recipientsOf(event({ subjectUserId: 'subject', type: 'comment.mentioned' }), from)).resolves.toEqual([
      'subject',
    ]);
    await expect(recipientsOf(event({ subjectUserId: 'actor' }), from)).resolves.toEqual([]);
    const inactive = sources({ inactive: ['subject'] });
    await expect(recipientsOf(event({ subjectUserId: 'subject' }), inactive)).resolves.toEqual([]);
  });

  it('asks for no one when there is no candidate', async () => {
    const from = sources({});
    await expect(recipientsOf(event({ documentId: null, type: 'document.updated' }), from)).resolves.toEqual([]);
    expect(from.activeAmong).not.toHaveBeenCalled();
  });
});

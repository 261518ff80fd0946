import type { OutboxEvent } from '../../events/entities/outbox-event.entity.js';

/** Where the recipient rule reads who is concerned by an event (repositories in the app, mocks in tests). */
export interface RecipientSources {
  /** The document's participants who may still read it. */
  participants(documentId: string): Promise<string[]>;
  documentWatchers(documentId: string): Promise<string[]>;
  documentMuters(documentId: string): Promise<string[]>;
  projectWatchers(projectId: string): Promise<string[]>;
  projectMembers(projectId: string): Promise<string[]>;
  /** Which of the users may read the document now. */
  readersAmong(documentId: string, userIds: string[]): Promise<string[]>;
  /** Which of the users are active. */
  activeAmong(userIds: string[]): Promise<string[]>;
}

/**
 * Who hears of an event, the one rule of the dispatcher:
 * - an event about one user (member added, mentioned) is for that user alone;
 * - otherwise (participants ∪ document watchers ∪ project watchers ∪ members for document.created)
 *   − those who muted the document − those who cannot read the document now;
 * - then always − the actor − those told by an event of their own (payload.mentioned: a comment's
 *   mentions; payload.toldSeparately: e.g. participants retention tells of what it did) − inactive users.
 */
export async function recipientsOf(
  event: Pick<OutboxEvent, 'type' | 'actorId' | 'projectId' | 'documentId' | 'subjectUserId' | 'payload'>,
  sources: RecipientSources,
): Promise<string[]> {
  let candidates: string[];
  if (event.subjectUserId) candidates = [event.subjectUserId];
  else if (event.documentId) candidates = await documentAudience(event, event.documentId, sources);
  else if (event.type === 'document.created' && event.projectId) {
    candidates = await sources.projectMembers(event.projectId);
  } else candidates = [];
  const toldElsewhere = new Set([
    ...stringList(event.payload?.mentioned),
    ...stringList(event.payload?.toldSeparately),
  ]);
  const wanted = [...new Set(candidates)].filter((id) => id !== event.actorId && !toldElsewhere.has(id));
  return wanted.length ? sources.activeAmong(wanted) : [];
}

async function documentAudience(
  event: Pick<OutboxEvent, 'type' | 'projectId'>,
  documentId: string,
  sources: RecipientSources,
): Promise<string[]> {
  const [participants, watchers, muters, projectWatchers, members] = await Promise.all([
    sources.participants(documentId),
    sources.documentWatchers(documentId),
    sources.documentMuters(documentId),
    event.projectId ? sources.projectWatchers(event.projectId) : [],
    event.type === 'document.created' && event.projectId ? sources.projectMembers(event.projectId) : [],
  ]);
  const readers = new Set(participants);
  // Participants come filtered by the read rule already; everyone else is checked here.
  const others = [...new Set([...watchers, ...projectWatchers, ...members])].filter((id) => !readers.has(id));
  for (const id of others.length ? await sources.readersAmong(documentId, others) : []) readers.add(id);
  const muted = new Set(muters);
  return [...readers].filter((id) => !muted.has(id));
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * What happened, as the transactional outbox records it: written in the same transaction as the
 * change itself (so no event is lost and none is recorded for a change that rolled back), and
 * turned into notifications by the dispatcher afterwards.
 */
export const DOMAIN_EVENT_TYPES = [
  'document.created',
  'document.updated',
  'document.version_added',
  'document.status_changed',
  'document.deleted',
  'document.restored',
  'document.retention_applied',
  'project.member_added',
  'comment.created',
  'comment.mentioned',
  'review.requested',
  'review.decided',
  'review.reminder',
  'review.overdue',
  'share.accessed',
  'search.matched',
  'webhook.disabled',
] as const;
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

export interface DomainEvent {
  type: DomainEventType;
  /** Who made the change. */
  actorId: string;
  projectId: string | null;
  documentId: string | null;
  /** The user the event is for alone (member_added: the member; review.*: a reviewer or requester; search.matched, webhook.disabled: the owner). */
  subjectUserId: string | null;
  /** What the notification texts need, e.g. `{ title, actorName, from, to }`; never secrets. */
  payload: Record<string, unknown>;
}

/** Who `actorId` names for an event the service itself caused (a webhook disabled after failures). */
export const SYSTEM_ACTOR_ID = '00000000-0000-0000-0000-000000000000';

import type { DomainEventType } from '../events/domain-event.js';

/** What a notification's text can name; read at dispatch time, with the event's payload as fallback. */
export interface EventContext {
  type: DomainEventType;
  actorName: string;
  documentTitle: string | null;
  projectName: string | null;
  payload: Record<string, unknown>;
}

export const SUBJECT_MAX_LENGTH = 255;

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** The subject (at most 255 code points) and message of the notifications made for one event. */
export function notificationText(context: EventContext): { subject: string; message: string } {
  const { actorName: actor, payload } = context;
  const title = `"${context.documentTitle ?? text(payload.title) ?? 'a document'}"`;
  const project = context.projectName ?? text(payload.projectName) ?? 'a project';
  let subject: string;
  let message: string;
  switch (context.type) {
    case 'document.created':
      subject = `New document ${title}`;
      message = `${actor} added the document ${title} to the project ${project}.`;
      break;
    case 'document.updated':
      subject = `${title} was updated`;
      message = `${actor} changed the details of the document ${title}.`;
      break;
    case 'document.version_added': {
      const version = typeof payload.version === 'number' ? ` (version ${payload.version})` : '';
      subject = `New version of ${title}`;
      message = `${actor} uploaded a new version of the document ${title}${version}.`;
      break;
    }
    case 'document.status_changed': {
      const from = text(payload.from);
      const to = text(payload.to);
      subject = to ? `${title} is now ${to}` : `The status of ${title} changed`;
      message = `${actor} changed the status of the document ${title}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}.`;
      break;
    }
    case 'document.deleted':
      subject = `${title} was moved to the trash`;
      message = `${actor} deleted the document ${title}.`;
      break;
    case 'document.restored':
      subject = `${title} was restored`;
      message = `${actor} restored the document ${title} from the trash.`;
      break;
    case 'document.retention_applied': {
      const done = { archive: 'archived', trash: 'moved to the trash', purge: 'deleted for good' }[
        String(payload.action) as 'archive' | 'trash' | 'purge'
      ];
      const days = typeof payload.days === 'number' ? ` after ${payload.days} days` : '';
      subject = `${title} was ${done ?? 'retained'} by retention`;
      message = `The retention policy of its document type${days} ${done ? `has ${done}` : 'applied to'} the document ${title}.`;
      break;
    }
    case 'comment.created':
      subject = `New comment on ${title}`;
      message = `${actor} commented on the document ${title}: ${text(payload.excerpt) ?? ''}`;
      break;
    case 'comment.mentioned':
      subject = `${actor} mentioned you on ${title}`;
      message = `${actor} mentioned you in a comment on the document ${title}: ${text(payload.excerpt) ?? ''}`;
      break;
    case 'project.member_added': {
      const role = text(payload.role);
      subject = `You were added to ${project}`;
      message = `${actor} added you to the project ${project}${role ? ` as ${role}` : ''}.`;
      break;
    }
  }
  return { subject: truncate(subject, SUBJECT_MAX_LENGTH), message };
}

function truncate(value: string, max: number): string {
  const points = Array.from(value);
  return points.length <= max ? value : `${points.slice(0, max - 1).join('')}…`;
}

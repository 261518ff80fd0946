import { eventDefinition, type DomainEventType } from '../events/domain-event.js';

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
  const { payload } = context;
  const { subject, message } = eventDefinition(context.type).text({
    actor: context.actorName,
    title: `"${context.documentTitle ?? text(payload.title) ?? 'a document'}"`,
    project: context.projectName ?? text(payload.projectName) ?? 'a project',
    payload,
  });
  return { subject: truncate(subject, SUBJECT_MAX_LENGTH), message };
}

function truncate(value: string, max: number): string {
  const points = Array.from(value);
  return points.length <= max ? value : `${points.slice(0, max - 1).join('')}…`;
}

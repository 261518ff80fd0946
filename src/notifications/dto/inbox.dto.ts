import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  MaxLength,
  ValidateBy,
  type ValidationArguments,
} from 'class-validator';
import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../../events/domain-event.js';
import { EMAIL_MODES, IF_UNREAD_DELAY_MINUTES, type EmailMode } from '../delivery/delivery-timing.js';
import { NOTIFICATION_STATUSES, NOTIFICATION_TYPES } from '../entities/notification.entity.js';
import type { EmailChoice } from '../notification-preferences.js';
import { NotificationDto } from './notification-list-response.dto.js';

export class NotificationResponseDto {
  @ApiProperty({ type: NotificationDto })
  notification: NotificationDto;
}

export class UpdateNotificationDto {
  @ApiProperty({ description: 'true: mark read (readAt kept if already read); false: mark unread', example: true })
  @IsDefined({ message: 'read is required (true or false)' })
  @IsBoolean({ message: 'read must be true or false' })
  readonly read: boolean;
}

export class ReadAllDto {
  @ApiPropertyOptional({ enum: NOTIFICATION_TYPES, description: 'Only notifications of this notificationType' })
  @IsOptional()
  @IsIn(NOTIFICATION_TYPES, { message: `type must be one of: ${NOTIFICATION_TYPES.join(', ')}` })
  readonly type?: string;

  @ApiPropertyOptional({ enum: NOTIFICATION_STATUSES, description: 'Only notifications in this status' })
  @IsOptional()
  @IsIn(NOTIFICATION_STATUSES, { message: `status must be one of: ${NOTIFICATION_STATUSES.join(', ')}` })
  readonly status?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Only notifications created at or before this instant (never later than the request itself); ' +
      'leave it out to mark everything unread up to now',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'before must be an ISO 8601 date-time, e.g. 2026-10-02T14:00:00Z' })
  readonly before?: string;
}

export class ReadAllResponseDto {
  @ApiProperty({ description: 'How many notifications became read', example: 12 })
  updated: number;

  @ApiPropertyOptional({
    description:
      'Present (false) only when a very large read-all stopped at its time budget: what it did is committed, ' +
      'and calling again marks the rest',
    enum: [false],
  })
  complete?: false;
}

export class UnreadByTypeDto {
  @ApiProperty({ example: 1 }) email: number;
  @ApiProperty({ example: 0 }) sms: number;
  @ApiProperty({ example: 0 }) push: number;
  @ApiProperty({ example: 4 }) in_app: number;
}

export class UnreadCountDto {
  @ApiProperty({ example: 5 })
  unread: number;

  @ApiProperty({ type: UnreadByTypeDto })
  byType: UnreadByTypeDto;
}

export class EmailChoiceDto {
  @ApiProperty({
    enum: EMAIL_MODES,
    description:
      'immediate: at once; if_unread: only if the in-app notification is still unread after delayMinutes ' +
      '(reading it cancels the e-mail); hourly / daily: one digest e-mail at the next full hour / at ' +
      "NOTIFY_DAILY_DIGEST_HOUR, in the user's timezone; off: no e-mail",
    example: 'if_unread',
  })
  mode: EmailMode;

  @ApiProperty({
    minimum: IF_UNREAD_DELAY_MINUTES.min,
    maximum: IF_UNREAD_DELAY_MINUTES.max,
    description: `if_unread's delay in minutes (default ${IF_UNREAD_DELAY_MINUTES.default}; kept whatever the mode)`,
    example: 15,
  })
  delayMinutes: number;
}

export class ChannelChoiceDto {
  @ApiProperty({ example: true })
  in_app: boolean;

  @ApiProperty({ type: EmailChoiceDto })
  email: EmailChoiceDto;
}

/** The request form of an e-mail choice: delayMinutes may be left out (the default). */
export class EmailChoiceInputDto {
  @ApiProperty({ enum: EMAIL_MODES, example: 'if_unread' })
  mode: EmailMode;

  @ApiPropertyOptional({
    minimum: IF_UNREAD_DELAY_MINUTES.min,
    maximum: IF_UNREAD_DELAY_MINUTES.max,
    description: `if_unread's delay in minutes (default ${IF_UNREAD_DELAY_MINUTES.default})`,
    example: 30,
  })
  delayMinutes?: number;
}

@ApiExtraModels(EmailChoiceInputDto)
export class ChannelChoiceInputDto {
  @ApiProperty({ example: true })
  in_app: boolean;

  @ApiProperty({
    oneOf: [{ type: 'boolean' }, { $ref: getSchemaPath(EmailChoiceInputDto) }],
    description: '{mode, delayMinutes?}; or, as before e-mail modes (still accepted): true (immediate) or false (off)',
    example: { mode: 'if_unread', delayMinutes: 30 },
  })
  email: boolean | EmailChoiceInputDto;
}

/** One optional property per event type ('document.created', ...): the OpenAPI shape of a choice set. */
export class PreferenceChoicesDto {
  [event: string]: ChannelChoiceDto | undefined;
}
/** The request form of a choice set. */
export class PreferenceChoicesInputDto {
  [event: string]: ChannelChoiceInputDto | undefined;
}
for (const event of DOMAIN_EVENT_TYPES) {
  ApiPropertyOptional({ type: ChannelChoiceDto })(PreferenceChoicesDto.prototype, event);
  ApiPropertyOptional({ type: ChannelChoiceInputDto })(PreferenceChoicesInputDto.prototype, event);
}

/** A valid request e-mail choice as stored (true: immediate, false: off); undefined when invalid. */
export function emailChoiceOf(value: unknown): EmailChoice | undefined {
  if (typeof value === 'boolean') {
    return { mode: value ? 'immediate' : 'off', delayMinutes: IF_UNREAD_DELAY_MINUTES.default };
  }
  if (!isPlainObject(value)) return undefined;
  const { mode, delayMinutes = IF_UNREAD_DELAY_MINUTES.default, ...rest } = value;
  if (Object.keys(rest).length > 0 || !(EMAIL_MODES as readonly unknown[]).includes(mode)) return undefined;
  if (
    typeof delayMinutes !== 'number' ||
    !Number.isInteger(delayMinutes) ||
    delayMinutes < IF_UNREAD_DELAY_MINUTES.min ||
    delayMinutes > IF_UNREAD_DELAY_MINUTES.max
  ) {
    return undefined;
  }
  return { mode: mode as EmailMode, delayMinutes };
}

/**
 * Why a choice set is refused (none: it is valid). Checked on the body as it arrived: the
 * transformer would skip keys named like Object's methods ("toString") and the whitelist with them.
 */
export function preferenceChoicesProblems(value: unknown): string[] {
  if (!isPlainObject(value)) return ['preferences must be an object keyed by event type'];
  const problems: string[] = [];
  for (const [event, choice] of Object.entries(value)) {
    if (!(DOMAIN_EVENT_TYPES as readonly string[]).includes(event)) {
      problems.push(`preferences.${event} is not an event type (one of: ${DOMAIN_EVENT_TYPES.join(', ')})`);
      continue;
    }
    const keys = isPlainObject(choice) ? Object.keys(choice).sort().join(',') : '';
    const { in_app: inApp, email } = isPlainObject(choice) ? choice : {};
    if (keys !== 'email,in_app' || typeof inApp !== 'boolean' || emailChoiceOf(email) === undefined) {
      problems.push(
        `preferences.${event} must be {"in_app": true|false, "email": {"mode": ${EMAIL_MODES.join('|')}, ` +
          `"delayMinutes"?: ${IF_UNREAD_DELAY_MINUTES.min}-${IF_UNREAD_DELAY_MINUTES.max}} or true|false}`,
      );
    }
  }
  return problems;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class UpdatePreferencesDto {
  @ApiProperty({
    type: PreferenceChoicesInputDto,
    description: 'Any subset of the event types, each with both channels',
    example: { 'document.updated': { in_app: true, email: { mode: 'if_unread', delayMinutes: 30 } } },
  })
  // The body's own value, as it arrived (see preferenceChoicesProblems).
  @Transform(({ obj }: { obj: Record<string, unknown> }) => obj.preferences, { toClassOnly: true })
  @IsDefined({ message: 'preferences is required' })
  @ValidateBy({
    name: 'preferenceChoices',
    validator: {
      validate: (value: unknown) => preferenceChoicesProblems(value).length === 0,
      defaultMessage: (args?: ValidationArguments) => preferenceChoicesProblems(args?.value).join('; '),
    },
  })
  readonly preferences: Partial<Record<DomainEventType, ChannelChoiceInputDto>>;
}

export class PreferencesResponseDto {
  @ApiProperty({
    type: PreferenceChoicesDto,
    description: 'Every event type with its channels',
    example: Object.fromEntries(
      DOMAIN_EVENT_TYPES.map((event) => [event, { in_app: true, email: { mode: 'immediate', delayMinutes: 15 } }]),
    ),
  })
  preferences: Record<string, ChannelChoiceDto>;
}

/** Tickets are 32 random bytes in base64url (43 characters); anything longer is not one. */
const STREAM_TICKET_MAX_LENGTH = 64;

export class StreamTicketDto {
  @ApiProperty({
    description: 'Single use: GET /api/notifications/stream?ticket=<ticket>',
    maxLength: STREAM_TICKET_MAX_LENGTH,
    example: 'l3VtY0hJc2FuRXhhbXBsZVRpY2tldE9mNDNDaGFyYWN0ZXJz',
  })
  ticket: string;

  @ApiProperty({ description: 'Seconds the ticket stays valid', example: 60 })
  expiresIn: number;
}

export class StreamQueryDto {
  @ApiPropertyOptional({
    description: 'A ticket from POST /api/notifications/stream-tickets (instead of the header)',
    maxLength: STREAM_TICKET_MAX_LENGTH,
  })
  @IsOptional()
  @IsString({ message: 'ticket must be given once, as a string' })
  @MaxLength(STREAM_TICKET_MAX_LENGTH)
  readonly ticket?: string;
}

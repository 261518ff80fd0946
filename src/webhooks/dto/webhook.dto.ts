import { ApiProperty, ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../../events/domain-event.js';
import { toInteger } from '../../common/validation/query.transforms.js';
import {
  NoControlCharacters,
  NoControlCharactersExceptWhitespace,
  TextLength,
} from '../../common/validation/text.validators.js';
import { IsUuidField } from '../../common/validation/uuid.validators.js';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery } from '../entities/webhook-delivery.entity.js';
import type { Webhook } from '../entities/webhook.entity.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

/** The events a hook may hear of: every domain event but the personal ones (a user's own alerts). */
export const WEBHOOK_EVENT_TYPES = DOMAIN_EVENT_TYPES.filter(
  (type) => type !== 'search.matched' && type !== 'webhook.disabled',
) as DomainEventType[];

export const WEBHOOK_LIMITS = { urlMax: 2048, descriptionMax: 500 } as const;

const URL_DOC = {
  maxLength: WEBHOOK_LIMITS.urlMax,
  example: 'https://hooks.example.com/dms',
  description:
    'https (http only when WEBHOOK_ALLOW_HTTP=true), no credentials; the host must resolve to public addresses ' +
    'unless WEBHOOK_ALLOWED_HOSTS lists it (checked now and again at every delivery). Redirects are not followed.',
};
const EVENTS_DOC = {
  enum: WEBHOOK_EVENT_TYPES,
  isArray: true,
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  example: ['document.created', 'document.status_changed'],
  description: 'The event types the hook receives (no repeats).',
};
const DESCRIPTION_DOC = {
  maxLength: WEBHOOK_LIMITS.descriptionMax,
  example: 'Archive sync',
  description: 'At most 500 characters (Unicode code points); may be empty.',
};

export class CreateWebhookDto {
  @ApiProperty(URL_DOC)
  @NoControlCharacters()
  @MaxLength(WEBHOOK_LIMITS.urlMax)
  @IsString({ message: 'url must be a string' })
  readonly url: string;

  @ApiProperty(EVENTS_DOC)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `events must each be one of: ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  @ArrayUnique({ message: 'events must not repeat an event type' })
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayMinSize(1, { message: 'events must name at least one event type' })
  @IsArray({ message: 'events must be an array of event types' })
  readonly events: DomainEventType[];

  @ApiPropertyOptional({
    format: 'uuid',
    example: DEMO_EXAMPLE.projectId,
    description:
      "A project's hook (hears only of that project; for its managers and holders of projects:manage). " +
      'Left out: a global hook (holders of projects:manage only).',
  })
  @IsOptional()
  @IsUuidField()
  readonly projectId?: string;

  @ApiPropertyOptional({ ...DESCRIPTION_DOC, default: '' })
  @IsOptional()
  @NoControlCharactersExceptWhitespace()
  @TextLength(0, WEBHOOK_LIMITS.descriptionMax)
  @IsString({ message: 'description must be a string' })
  readonly description?: string;
}

export class UpdateWebhookDto extends PartialType(
  PickType(CreateWebhookDto, ['url', 'events', 'description'] as const),
) {
  @ApiPropertyOptional({
    example: true,
    description:
      'false disables the hook (no new deliveries; pending ones end failed, replay them later); true enables it ' +
      'again, also after it was disabled for failures.',
  })
  @IsOptional()
  @IsBoolean({ message: 'enabled must be true or false' })
  readonly enabled?: boolean;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '3f6c1a2b-4d5e-4f70-8a9b-0c1d2e3f4a5b' })
  id: string;

  @ApiProperty({ ...URL_DOC, description: 'Where deliveries are POSTed' })
  url: string;

  @ApiProperty({ ...EVENTS_DOC, minItems: undefined })
  events: string[];

  @ApiProperty({
    format: 'uuid',
    maxLength: 36,
    nullable: true,
    type: 'string',
    example: '2c4e6a8b-1d3f-4a5b-9c7d-8e0f1a2b3c4d',
    description: 'null: a global hook',
  })
  projectId: string | null;

  @ApiProperty(DESCRIPTION_DOC)
  description: string;

  @ApiProperty({ example: true, description: 'false: paused, or disabled after failures (see disabledAt)' })
  enabled: boolean;

  @ApiProperty({ format: 'date-time', maxLength: 30, nullable: true, type: 'string', example: null })
  disabledAt: string | null;

  @ApiProperty({
    format: 'uuid',
    maxLength: 36,
    example: '0b3e7c1e-2d4a-4f7b-9a55-6c1d2e3f4a5b',
    description:
      'Who created it: hears of its disabling, and it never receives events about documents they cannot read',
  })
  ownerId: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  updatedAt: string;

  static from(hook: Webhook): WebhookDto {
    return {
      id: hook.id,
      url: hook.url,
      events: hook.events,
      projectId: hook.projectId,
      description: hook.description,
      enabled: hook.enabled,
      disabledAt: hook.disabledAt?.toISOString() ?? null,
      ownerId: hook.ownerId,
      createdAt: hook.createdAt.toISOString(),
      updatedAt: hook.updatedAt.toISOString(),
    };
  }
}

const SECRET_DOC = {
  maxLength: 100,
  pattern: '^whsec_[A-Za-z0-9+/=]{32,}$',
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  description:
    'The signing secret, shown only now: `whsec_` + base64 of 32 random bytes. Verify webhook-signature with a ' +
    'Standard Webhooks library, or as base64(HMAC-SHA256(key = base64-decoded part after whsec_, ' +
    '"<webhook-id>.<webhook-timestamp>.<body>")).',
};

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty(SECRET_DOC)
  secret: string;
}

export class WebhookSecretDto {
  @ApiProperty({ ...SECRET_DOC, description: `${SECRET_DOC.description} The old secret stops signing at once.` })
  secret: string;
}

export class ListDeliveriesQueryDto {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(100)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = 20;

  @ApiPropertyOptional({
    description: 'Opaque position returned as nextCursor: the page continues right after that delivery.',
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}

const NULLABLE_TIME = { format: 'date-time', maxLength: 30, nullable: true, type: 'string' } as const;

export class WebhookDeliveryDto {
  @ApiProperty({
    format: 'uuid',
    maxLength: 36,
    example: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    description: 'Also the message id sent as webhook-id (the same on every retry and replay)',
  })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, example: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a' })
  eventId: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, example: 'document.created' })
  eventType: string;

  @ApiProperty({
    enum: DELIVERY_STATUSES,
    example: 'succeeded',
    description: 'pending: due or waiting for a retry; succeeded: a 2xx; failed: every attempt failed',
  })
  status: DeliveryStatus;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0, maximum: 100, example: 1 })
  attempts: number;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    nullable: true,
    minimum: 100,
    maximum: 599,
    example: 200,
    description: "The receiver's answer to the last attempt; null when none came",
  })
  responseStatus: number | null;

  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, minimum: 0, maximum: 2_147_483_647, example: 42 })
  durationMs: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 255,
    example: null,
    description: 'Why the last attempt failed (e.g. "answered 503", "timed out")',
  })
  lastError: string | null;

  @ApiProperty({ ...NULLABLE_TIME, example: null, description: 'When the next attempt is due; null once finished' })
  nextAttemptAt: string | null;

  @ApiProperty({ ...NULLABLE_TIME, example: '2026-11-27T10:15:30.456Z' })
  lastAttemptAt: string | null;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({ ...NULLABLE_TIME, example: '2026-11-27T10:15:30.500Z' })
  finishedAt: string | null;

  static from(delivery: WebhookDelivery): WebhookDeliveryDto {
    return {
      id: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      status: delivery.status,
      attempts: delivery.attempts,
      responseStatus: delivery.responseStatus,
      durationMs: delivery.durationMs,
      lastError: delivery.lastError,
      // While pending, the row holds a claim's lease end during an attempt; shown as is.
      nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
      lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
      createdAt: delivery.createdAt.toISOString(),
      finishedAt: delivery.finishedAt?.toISOString() ?? null,
    };
  }
}

export class WebhookDeliveryListResponseDto {
  @ApiProperty({ type: [WebhookDeliveryDto], maxItems: 100, description: 'Newest first' })
  deliveries: WebhookDeliveryDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
    example: null,
    description: 'Pass as cursor for the older deliveries; null when there are none.',
  })
  nextCursor: string | null;
}

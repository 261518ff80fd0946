import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import { NOTIFICATION_STATUSES, NOTIFICATION_TYPES, type Notification } from '../entities/notification.entity.js';

export class NotificationDto {
  @ApiProperty({ format: 'uuid', maxLength: 36 })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, description: 'Recipient (always the caller)' })
  userId: string;

  @ApiProperty({ maxLength: 255, example: 'Document approved' })
  subject: string;

  @ApiProperty({
    maxLength: 65_535,
    example: 'Your document "Q3 supplier contract" was approved.',
    description: 'Stored as TEXT (at most 65,535 bytes on MySQL).',
  })
  message: string;

  @ApiProperty({ enum: NOTIFICATION_TYPES, example: 'email' })
  notificationType: string;

  @ApiProperty({ enum: NOTIFICATION_STATUSES, example: 'read' })
  status: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    maxLength: 30,
    nullable: true,
    example: '2026-10-02T14:12:09.123Z',
    description: 'When the notification was read; null while unread.',
  })
  readAt: string | null;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-10-02T14:00:00.000Z' })
  createdAt: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 64,
    example: 'document.status_changed',
    description: 'The event it was made from; null for notifications not made from an event',
  })
  event: string | null;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The document the event was about' })
  documentId: string | null;

  static from(
    notification: Pick<
      Notification,
      | 'id'
      | 'userId'
      | 'subject'
      | 'message'
      | 'notificationType'
      | 'status'
      | 'readAt'
      | 'createdAt'
      | 'event'
      | 'documentId'
    >,
  ): NotificationDto {
    return {
      id: notification.id,
      userId: notification.userId,
      subject: notification.subject,
      message: notification.message,
      notificationType: notification.notificationType,
      status: notification.status,
      readAt: notification.readAt ? notification.readAt.toISOString() : null,
      createdAt: notification.createdAt.toISOString(),
      event: notification.event ?? null,
      documentId: notification.documentId ?? null,
    };
  }
}

export class NotificationListResponseDto {
  @ApiProperty({
    type: [NotificationDto],
    maxItems: 100,
    description: 'Newest first (createdAt, then id, descending); at most limit items',
  })
  notifications: NotificationDto[];

  @ApiProperty({ type: PaginationDto })
  pagination: PaginationDto;
}

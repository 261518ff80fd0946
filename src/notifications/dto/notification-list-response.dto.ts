import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import { NOTIFICATION_STATUSES, NOTIFICATION_TYPES, type Notification } from '../entities/notification.entity.js';

export class NotificationDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'Recipient (always the caller)' })
  userId: string;

  @ApiProperty({ example: 'Document approved' })
  subject: string;

  @ApiProperty({ example: 'Your document "Q3 supplier contract" was approved.' })
  message: string;

  @ApiProperty({ enum: NOTIFICATION_TYPES, example: 'email' })
  notificationType: string;

  @ApiProperty({ enum: NOTIFICATION_STATUSES, example: 'read' })
  status: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-10-02T14:12:09.123Z',
    description: 'When the notification was read; null while unread.',
  })
  readAt: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-10-02T14:00:00.000Z' })
  createdAt: string;

  static from(notification: Notification): NotificationDto {
    return {
      id: notification.id,
      userId: notification.userId,
      subject: notification.subject,
      message: notification.message,
      notificationType: notification.notificationType,
      status: notification.status,
      readAt: notification.readAt ? notification.readAt.toISOString() : null,
      createdAt: notification.createdAt.toISOString(),
    };
  }
}

export class NotificationListResponseDto {
  @ApiProperty({ type: [NotificationDto], description: 'Newest first (createdAt, then id, descending)' })
  notifications: NotificationDto[];

  @ApiProperty({ type: PaginationDto })
  pagination: PaginationDto;
}

import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { ErrorResponseDto } from '../common/errors/error-response.dto.js';
import { Authenticated } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { ListNotificationsQueryDto } from './dto/list-notifications-query.dto.js';
import { NotificationDto, NotificationListResponseDto } from './dto/notification-list-response.dto.js';
import { encodeCursor } from './notification-cursor.js';
import { NotificationsService } from './notifications.service.js';

@ApiTags('notifications')
@ApiBearerAuth()
@Authenticated()
@Controller('api/notifications')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get()
  @ApiOperation({
    summary: "List the caller's notifications",
    description:
      "Only the authenticated user's own notifications, newest first (createdAt descending, id descending " +
      'as tie-break, so pages never overlap or skip). status, type and unreadOnly combine with AND. ' +
      'totalPages = ceil(total / limit); a page past the end answers 200 with an empty list and the true total. ' +
      'Repeated or unknown query parameters are rejected with 400. For deep walks, follow ' +
      'pagination.nextCursor with the cursor parameter (keyset pagination: the same cost at any depth) ' +
      'instead of raising page.',
  })
  @ApiOkResponse({ type: NotificationListResponseDto, description: 'One page of notifications and where it is.' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'validation_failed: a query parameter is invalid' })
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'unauthorized: no valid bearer token' })
  @ApiCommonErrors()
  async list(
    @Query() query: ListNotificationsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<NotificationListResponseDto> {
    const { notifications, total, next } = await this.notifications.list(user.id, query);
    return {
      notifications: notifications.map((notification) => NotificationDto.from(notification)),
      pagination: PaginationDto.of(
        query.cursor === undefined ? (query.page ?? 1) : null,
        query.limit,
        total,
        next ? encodeCursor(next) : null,
      ),
    };
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { BearerToken } from '../common/http/bearer-token.decorator.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { Authenticated, Public } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import type { DomainEventType } from '../events/domain-event.js';
import {
  NotificationResponseDto,
  PreferencesResponseDto,
  ReadAllDto,
  ReadAllResponseDto,
  StreamQueryDto,
  StreamTicketDto,
  UnreadCountDto,
  UpdateNotificationDto,
  UpdatePreferencesDto,
  emailChoiceOf,
} from './dto/inbox.dto.js';
import { ListNotificationsQueryDto } from './dto/list-notifications-query.dto.js';
import { ListThreadsQueryDto, SnoozeDto, SnoozeResponseDto, ThreadListResponseDto } from './dto/threads.dto.js';
import { NotificationDto, NotificationListResponseDto } from './dto/notification-list-response.dto.js';
import { encodeCursor } from './notification-cursor.js';
import type { ChannelChoice } from './notification-preferences.js';
import { NotificationsService } from './notifications.service.js';
import { NotificationStreamService } from './stream/notification-stream.service.js';

@ApiTags('notifications')
@ApiBearerAuth()
@Authenticated()
@Controller('api/notifications')
export class NotificationsController {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly streams: NotificationStreamService,
  ) {}

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
  @ApiErrors('unauthorized')
  async list(
    @Query() query: ListNotificationsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<NotificationListResponseDto> {
    const { notifications, total, next } = await this.notifications.list(user.id, query);
    return {
      notifications,
      pagination: PaginationDto.of(
        query.cursor === undefined ? (query.page ?? 1) : null,
        query.limit,
        total,
        next ? encodeCursor(next) : null,
      ),
    };
  }

  @Get('unread-count')
  @ApiOperation({
    summary: "The caller's unread notifications, in all and by type",
    description: 'Read from the trigger-kept counts table (no COUNT over notifications): exact after every change.',
  })
  @ApiOkResponse({ type: UnreadCountDto })
  @ApiErrors('unauthorized')
  unreadCount(@CurrentUser() user: AuthenticatedUser): Promise<UnreadCountDto> {
    return this.notifications.unreadCount(user.id);
  }

  @Post('read-all')
  @HttpCode(200)
  @ApiOperation({
    summary: "Mark the caller's unread notifications read",
    description:
      'Optional filters combine with AND: type, status, and before (ISO date-time: only notifications created ' +
      'at or before it). Notifications created after the request began stay unread.',
  })
  @ApiBody({
    type: ReadAllDto,
    examples: {
      all: { summary: 'Every unread notification', value: {} },
      inApp: { summary: 'Only in-app notifications', value: { type: 'in_app' } },
    },
  })
  @ApiOkResponse({ type: ReadAllResponseDto })
  @ApiErrors('unauthorized')
  async readAll(@Body() body: ReadAllDto, @CurrentUser() user: AuthenticatedUser): Promise<ReadAllResponseDto> {
    const requestStart = new Date();
    return this.notifications.readAll(user.id, body ?? {}, requestStart);
  }

  @Get('preferences')
  @ApiOperation({
    summary: "The caller's channel choices for every event type",
    description:
      'Defaults: in_app on for every event; email immediate for document.updated, document.version_added, ' +
      'document.status_changed, project.member_added and comment.mentioned, off for the others. E-mail is only ' +
      'sent when the service has SMTP_URL; e-mails due in quiet hours or a snooze wait until they end.',
  })
  @ApiOkResponse({ type: PreferencesResponseDto })
  @ApiErrors('unauthorized')
  async preferences(@CurrentUser() user: AuthenticatedUser): Promise<PreferencesResponseDto> {
    return { preferences: await this.notifications.preferences(user.id) };
  }

  @Put('preferences')
  @ApiOperation({
    summary: 'Change channel choices',
    description:
      'Any subset of the event types, each with both channels; answers the whole set. email is ' +
      '{mode, delayMinutes?} (mode immediate, if_unread, hourly, daily or off); the earlier form, a boolean ' +
      '(true: immediate, false: off), is still accepted.',
  })
  @ApiOkResponse({ type: PreferencesResponseDto })
  @ApiErrors('unauthorized')
  async updatePreferences(
    @Body() body: UpdatePreferencesDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<PreferencesResponseDto> {
    const choices: Partial<Record<DomainEventType, ChannelChoice>> = {};
    for (const [event, choice] of Object.entries(body.preferences)) {
      // Validated by the DTO: emailChoiceOf answers for every choice that reaches here.
      if (choice) choices[event as DomainEventType] = { in_app: choice.in_app, email: emailChoiceOf(choice.email)! };
    }
    return { preferences: await this.notifications.updatePreferences(user.id, choices) };
  }

  @Get('threads')
  @ApiOperation({
    summary: "The caller's notifications as threads, one per document",
    description:
      'In-app notifications grouped by document (or, without one, by event type), newest thread first, ' +
      "each with the document's title, its newest notification and exact unread and total counts (counted " +
      'from the notifications in one statement). Follow nextCursor for the next page.',
  })
  @ApiOkResponse({ type: ThreadListResponseDto })
  @ApiErrors('unauthorized')
  threads(@Query() query: ListThreadsQueryDto, @CurrentUser() user: AuthenticatedUser): Promise<ThreadListResponseDto> {
    return this.notifications.threads(user.id, query.limit, query.cursor);
  }

  @Post('threads/:documentId/read')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mark a thread read',
    description:
      'Every unread notification of the caller about the document (all channels) becomes read, as read-all ' +
      'does; an if_unread e-mail not yet sent is then cancelled. Idempotent; a document with no notification ' +
      'of the caller answers updated 0.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({ type: ReadAllResponseDto })
  @ApiErrors('invalid_json', 'unauthorized', 'request_timeout', 'payload_too_large', 'unsupported_media_type')
  readThread(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ReadAllResponseDto> {
    return this.notifications.readThread(user.id, documentId);
  }

  @Post('snooze')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Snooze e-mail notifications',
    description:
      'E-mails due before `until` wait until then (in-app notifications still arrive, the stream still ' +
      'updates counts); urgent events pass when the urgentBypass setting is on. Replaces an earlier snooze.',
  })
  @ApiOkResponse({ type: SnoozeResponseDto })
  @ApiErrors('unauthorized')
  snooze(@Body() body: SnoozeDto, @CurrentUser() user: AuthenticatedUser): Promise<SnoozeResponseDto> {
    return this.notifications.snooze(user.id, new Date(body.until));
  }

  @Delete('snooze')
  @HttpCode(204)
  @ApiOperation({ summary: 'End the snooze', description: 'Held e-mails go out at their due time. Idempotent.' })
  @ApiNoContentResponse({ description: 'Not snoozed' })
  @ApiErrors('unauthorized')
  async unsnooze(@CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.notifications.unsnooze(user.id);
  }

  @Post('stream-tickets')
  @ApiOperation({
    summary: 'A single-use ticket for the notification stream',
    description:
      'For EventSource, which cannot send headers: GET /api/notifications/stream?ticket=... within expiresIn ' +
      'seconds (at most 60). The stream then lives as long as the token that asked for the ticket.',
  })
  @ApiCreatedResponse({ type: StreamTicketDto })
  @ApiErrors('unauthorized')
  createStreamTicket(
    @CurrentUser() user: AuthenticatedUser,
    @BearerToken() authorization: string | undefined,
  ): Promise<StreamTicketDto> {
    return this.notifications.createStreamTicket(user.id, this.streams.tokenOf(authorization));
  }

  @Get('stream')
  @Public() // Authenticated in the handler: by the header, or by a ticket (no header possible).
  @ApiOperation({
    summary: "Live stream of the caller's notifications (Server-Sent Events)",
    description:
      'Authorization header or ?ticket=. Events: `notification` (id: the notification id, data: as the list ' +
      'shows it) and `unread-count` (data {unread}) after every change of the count, the first right away. ' +
      'Last-Event-ID replays newer notifications of the caller (up to 1000). A heartbeat comment every ' +
      'SSE_HEARTBEAT_SECONDS. Ends within 30 s of logout, deactivation or token expiry. Not cut by the request ' +
      'deadline.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'The event stream',
    content: {
      'text/event-stream': {
        // Unbounded by nature; the bound states that, for the OWASP string-limit rule.
        schema: { type: 'string', maxLength: 1_099_511_627_776 },
        example:
          'id: 9b2f...\nevent: notification\ndata: {"id":"9b2f...",...}\n\nevent: unread-count\ndata: {"unread":3}\n\n',
      },
    },
  })
  @ApiErrors('unauthorized', 'too_many_requests')
  async stream(
    @Query() query: StreamQueryDto,
    @BearerToken() authorization: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const session = await this.streams.authenticate(authorization, query.ticket);
    await this.streams.open(session, request, reply);
  }

  @Get(':notificationId')
  @ApiOperation({
    summary: "One of the caller's notifications",
    description: 'As the list shows it. Reading it does not mark it read (PATCH does).',
  })
  @ApiParam({ name: 'notificationId', format: 'uuid' })
  @ApiOkResponse({ type: NotificationResponseDto })
  @ApiErrors('unauthorized', 'notification_not_found')
  async get(
    @Param('notificationId', uuidParam('notificationId')) id: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<NotificationResponseDto> {
    return { notification: NotificationDto.from(await this.notifications.get(user.id, id)) };
  }

  @Patch(':notificationId')
  @ApiOperation({
    summary: 'Mark one notification read or unread',
    description:
      'read=true: readAt set (kept if already read), status read. read=false: readAt null, status back to its ' +
      'delivery status (sent, pending or failed). Idempotent.',
  })
  @ApiParam({ name: 'notificationId', format: 'uuid' })
  @ApiOkResponse({ type: NotificationResponseDto })
  @ApiErrors('unauthorized', 'notification_not_found')
  async update(
    @Param('notificationId', uuidParam('notificationId')) id: string,
    @Body() body: UpdateNotificationDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<NotificationResponseDto> {
    return { notification: NotificationDto.from(await this.notifications.setRead(user.id, id, body.read)) };
  }

  @Delete(':notificationId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete one notification',
    description: 'Gone from the list, the counts and stream replays.',
  })
  @ApiParam({ name: 'notificationId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors('unauthorized', 'notification_not_found')
  async remove(
    @Param('notificationId', uuidParam('notificationId')) id: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<void> {
    await this.notifications.remove(user.id, id);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { UsesPolicy } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  ListDeliveriesQueryDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDeliveryListResponseDto,
  WebhookDto,
  WebhookSecretDto,
} from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

@ApiTags('webhooks')
@ApiBearerAuth()
@UsesPolicy('webhook')
@Controller('api/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a webhook',
    description:
      'A global hook (no projectId; holders of projects:manage) or a project hook (its managers and holders of ' +
      'projects:manage). Answers the signing secret, shown only this once. Deliveries follow the Standard ' +
      'Webhooks specification: a POST of {type, timestamp, data} with webhook-id, webhook-timestamp and ' +
      'webhook-signature; retried with back-off on network errors, timeouts and non-2xx answers.',
  })
  @ApiCreatedResponse({
    type: CreatedWebhookDto,
    headers: { Location: { description: 'URL of the new webhook', schema: { type: 'string' } } },
  })
  @ApiErrors('webhook_url_refused', 'unauthorized', 'forbidden', 'project_not_found')
  async create(
    @Body() body: CreateWebhookDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CreatedWebhookDto> {
    const { hook, secret } = await this.webhooks.create(body, user, audit);
    void reply.header('location', `/api/webhooks/${hook.id}`);
    return Object.assign(WebhookDto.from(hook), { secret });
  }

  @Get(':webhookId')
  @ApiOperation({ summary: 'Read a webhook', description: 'For those who manage it; never the secret.' })
  @ApiParam({ name: 'webhookId', format: 'uuid' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrors('unauthorized', 'webhook_not_found')
  async get(
    @Param('webhookId', uuidParam('webhookId')) id: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<WebhookDto> {
    return WebhookDto.from(await this.webhooks.get(id, user));
  }

  @Patch(':webhookId')
  @ApiOperation({
    summary: 'Change a webhook',
    description: 'url, events, description, enabled (true enables a hook disabled after failures). The project stays.',
  })
  @ApiParam({ name: 'webhookId', format: 'uuid' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrors('webhook_url_refused', 'unauthorized', 'webhook_not_found')
  async update(
    @Param('webhookId', uuidParam('webhookId')) id: string,
    @Body() body: UpdateWebhookDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<WebhookDto> {
    return WebhookDto.from(await this.webhooks.update(id, body, user, audit));
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook', description: 'With its delivery log; pending deliveries are dropped.' })
  @ApiParam({ name: 'webhookId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors('unauthorized', 'webhook_not_found')
  async remove(
    @Param('webhookId', uuidParam('webhookId')) id: string,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.webhooks.remove(id, user, audit);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: "Rotate a webhook's signing secret",
    description: 'Answers the new secret, shown only this once; every later attempt is signed with it.',
  })
  @ApiParam({ name: 'webhookId', format: 'uuid' })
  @ApiOkResponse({ type: WebhookSecretDto })
  @ApiErrors('unauthorized', 'webhook_not_found')
  async rotateSecret(
    @Param('webhookId', uuidParam('webhookId')) id: string,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<WebhookSecretDto> {
    return { secret: await this.webhooks.rotateSecret(id, user, audit) };
  }

  @Get(':webhookId/deliveries')
  @ApiOperation({
    summary: "A webhook's delivery log",
    description:
      'Newest first, keyset-paginated with nextCursor: status, attempts, last answer, duration, next attempt.',
  })
  @ApiParam({ name: 'webhookId', format: 'uuid' })
  @ApiOkResponse({ type: WebhookDeliveryListResponseDto })
  @ApiErrors('unauthorized', 'webhook_not_found')
  async deliveries(
    @Param('webhookId', uuidParam('webhookId')) id: string,
    @Query() query: ListDeliveriesQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<WebhookDeliveryListResponseDto> {
    const page = await this.webhooks.deliveries(id, user, query.limit, query.cursor);
    return {
      deliveries: page.deliveries.map((delivery) => WebhookDeliveryDto.from(delivery)),
      nextCursor: page.nextCursor,
    };
  }

  @Post(':webhookId/deliveries/:deliveryId/replay')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a delivery again',
    description: 'Puts it back in the queue, due now, with the same message id (webhook-id) and fresh attempts.',
  })
  @ApiParam({ name: 'webhookId', format: 'uuid' })
  @ApiParam({ name: 'deliveryId', format: 'uuid' })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  @ApiErrors('unauthorized', 'webhook_not_found', 'webhook_delivery_not_found', 'webhook_disabled')
  async replay(
    @Param('webhookId', uuidParam('webhookId')) id: string,
    @Param('deliveryId', uuidParam('deliveryId')) deliveryId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<WebhookDeliveryDto> {
    return WebhookDeliveryDto.from(await this.webhooks.replay(id, deliveryId, user));
  }
}

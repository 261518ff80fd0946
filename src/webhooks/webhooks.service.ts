import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../common/pagination/keyset-cursor.js';
import { Clock } from '../common/time/clock.js';
import { webhooksConfig } from '../config/configuration.js';
import { Transactions } from '../database/transactions.js';
import { ProjectMembership } from '../projects/project-membership.service.js';
import { checkReceiverUrl, ReceiverRefused } from './delivery/receiver-address.js';
import { SECRET_PREFIX } from './delivery/webhook-sender.js';
import type { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook.dto.js';
import type { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { Webhook } from './entities/webhook.entity.js';
import { WebhooksRepository } from './webhooks.repository.js';

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

/** Random bytes in a secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;

/**
 * Webhooks: holders of projects:manage manage global hooks and every project's; a project's
 * managers manage that project's. Anyone else is told the hook does not exist (404).
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly hooks: WebhooksRepository,
    private readonly members: ProjectMembership,
    private readonly audit: AuditTrail,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    @Inject(webhooksConfig.KEY) private readonly config: ConfigType<typeof webhooksConfig>,
  ) {}

  async create(
    input: CreateWebhookDto,
    user: AuthenticatedUser,
    audit: AuditContext,
  ): Promise<{ hook: Webhook; secret: string }> {
    const projectId = input.projectId?.toLowerCase() ?? null;
    if (projectId === null && !hasPermission(user, 'projects', 'manage')) {
      throw new ApiError('forbidden', 'A global webhook needs projects:manage; give projectId for a project webhook.');
    }
    if (projectId !== null) {
      if (!(await this.hooks.projectExists(projectId))) {
        throw new ApiError('project_not_found', `No project has the id ${projectId}.`);
      }
      if (!(await this.mayManage(user, projectId))) {
        throw new ApiError('forbidden', "A project's webhooks are for its managers and holders of projects:manage.");
      }
    }
    await this.checkUrl(input.url);
    const now = this.clock.now();
    const secret = newSecret();
    const hook: Webhook = {
      id: randomUUID(),
      ownerId: user.id,
      projectId,
      url: input.url,
      description: input.description ?? '',
      events: input.events,
      secret,
      enabled: true,
      disabledAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.transactions.run(async (tx) => {
      await this.hooks.insert(tx, hook);
      await this.audit.record(tx, audit, {
        action: 'webhook.created',
        targetType: 'webhook',
        targetId: hook.id,
        changes: {
          url: { from: null, to: hook.url },
          events: { from: null, to: hook.events },
          projectId: { from: null, to: projectId },
          description: { from: null, to: hook.description },
        },
      });
    });
    return { hook, secret };
  }

  /** The hook, if the caller manages it; 404 webhook_not_found otherwise. */
  async get(id: string, user: AuthenticatedUser): Promise<Webhook> {
    const hook = await this.hooks.find(id);
    if (!hook || !(await this.mayManage(user, hook.projectId))) {
      throw new ApiError('webhook_not_found', `No webhook with id ${id} that you manage.`);
    }
    return hook;
  }

  async update(id: string, input: UpdateWebhookDto, user: AuthenticatedUser, audit: AuditContext): Promise<Webhook> {
    const hook = await this.get(id, user);
    if (input.url !== undefined && input.url !== hook.url) await this.checkUrl(input.url);
    const next: Partial<Webhook> = {};
    if (input.url !== undefined && input.url !== hook.url) next.url = input.url;
    if (input.description !== undefined && input.description !== hook.description) next.description = input.description;
    if (input.events !== undefined && input.events.join() !== hook.events.join()) next.events = input.events;
    if (input.enabled !== undefined && input.enabled !== hook.enabled) {
      next.enabled = input.enabled;
      next.disabledAt = input.enabled ? null : this.clock.now();
    }
    const changed = Object.keys(next) as (keyof Webhook)[];
    if (changed.length === 0) return hook;
    const updated: Webhook = Object.assign(new Webhook(), hook, next, {
      updatedAt: this.clock.now(),
    });
    await this.transactions.run(async (tx) => {
      await this.hooks.update(tx, id, { ...next, updatedAt: updated.updatedAt });
      await this.audit.record(tx, audit, {
        action: 'webhook.updated',
        targetType: 'webhook',
        targetId: id,
        changes: Object.fromEntries(changed.map((key) => [key, { from: hook[key], to: updated[key] }])),
      });
    });
    return updated;
  }

  async remove(id: string, user: AuthenticatedUser, audit: AuditContext): Promise<void> {
    const hook = await this.get(id, user);
    await this.transactions.run(async (tx) => {
      await this.hooks.delete(tx, id);
      await this.audit.record(tx, audit, {
        action: 'webhook.deleted',
        targetType: 'webhook',
        targetId: id,
        changes: { url: { from: hook.url, to: null }, projectId: { from: hook.projectId, to: null } },
      });
    });
  }

  /** A new secret, in force at once; the old one signs nothing more. */
  async rotateSecret(id: string, user: AuthenticatedUser, audit: AuditContext): Promise<string> {
    await this.get(id, user);
    const secret = newSecret();
    await this.transactions.run(async (tx) => {
      await this.hooks.update(tx, id, { secret, updatedAt: this.clock.now() });
      // Never the secrets themselves in the trail.
      await this.audit.record(tx, audit, {
        action: 'webhook.secret_rotated',
        targetType: 'webhook',
        targetId: id,
        changes: { secret: { from: 'redacted', to: 'redacted' } },
      });
    });
    return secret;
  }

  async deliveries(id: string, user: AuthenticatedUser, limit: number, cursor?: string): Promise<DeliveryPage> {
    await this.get(id, user);
    const before = cursor === undefined ? undefined : decodeKeysetCursor(cursor);
    const rows = await this.hooks.deliveryPage(id, limit, before);
    const deliveries = rows.slice(0, limit);
    const last = deliveries.at(-1);
    const nextCursor = rows.length > limit && last ? encodeKeysetCursor({ at: last.createdAt, id: last.id }) : null;
    return { deliveries, nextCursor };
  }

  /** Sends a delivery again (same message id, fresh attempts), whatever its status. */
  async replay(id: string, deliveryId: string, user: AuthenticatedUser): Promise<WebhookDelivery> {
    const hook = await this.get(id, user);
    if (!hook.enabled) {
      throw new ApiError('webhook_disabled', 'The webhook is disabled; enable it (PATCH {"enabled": true}) first.');
    }
    const delivery = await this.hooks.findDelivery(id, deliveryId);
    if (!delivery) {
      throw new ApiError('webhook_delivery_not_found', `The webhook has no delivery with id ${deliveryId}.`);
    }
    const now = this.clock.now();
    await this.transactions.run((tx) => this.hooks.requeue(tx, deliveryId, now));
    return (await this.hooks.findDelivery(id, deliveryId))!;
  }

  private async mayManage(user: AuthenticatedUser, projectId: string | null): Promise<boolean> {
    if (hasPermission(user, 'projects', 'manage')) return true;
    return projectId !== null && (await this.members.roleOf(user.id, projectId)) === 'manager';
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      await checkReceiverUrl(url, this.config);
    } catch (error) {
      if (error instanceof ReceiverRefused) throw new ApiError('webhook_url_refused', error.message);
      throw error;
    }
  }
}

function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

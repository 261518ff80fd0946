import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { EventsModule } from '../events/events.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker.js';
import { WebhookFanout } from './delivery/webhook-fanout.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

@Module({
  imports: [DocumentsModule, ProjectsModule, EventsModule, AuditModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksRepository, WebhookFanout, WebhookDeliveryWorker],
})
export class WebhooksModule {}

import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { DocumentsModule } from '../documents/documents.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { UsersModule } from '../users/users.module.js';
import { WatchesModule } from '../watches/watches.module.js';
import { DeliveryRepository } from './delivery/delivery.repository.js';
import { EmailDeliveryWorker } from './delivery/email-delivery.worker.js';
import { EmailChannel } from './delivery/email.channel.js';
import { InAppChannel, NOTIFICATION_CHANNELS } from './delivery/notification-channel.js';
import { NotificationDispatcher } from './delivery/notification-dispatcher.js';
import { NotificationsController } from './notifications.controller.js';
import { NotificationsRepository } from './notifications.repository.js';
import { NotificationsService } from './notifications.service.js';
import { NotificationHub } from './stream/notification-hub.js';
import { NotificationStreamService } from './stream/notification-stream.service.js';

@Module({
  imports: [ProjectsModule, DocumentsModule, UsersModule, WatchesModule, JwtModule.register({})],
  controllers: [NotificationsController],
  providers: [
    NotificationsService,
    NotificationsRepository,
    NotificationHub,
    NotificationStreamService,
    DeliveryRepository,
    NotificationDispatcher,
    EmailChannel,
    EmailDeliveryWorker,
    // The channels a notification can be made for; add sms/push implementations here.
    {
      provide: NOTIFICATION_CHANNELS,
      useFactory: (email: EmailChannel) => [new InAppChannel(), email],
      inject: [EmailChannel],
    },
  ],
})
export class NotificationsModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationCount } from './entities/notification-count.entity.js';
import { Notification } from './entities/notification.entity.js';
import { NotificationsController } from './notifications.controller.js';
import { NotificationSeekCache } from './notification-seek-cache.js';
import { NotificationsService } from './notifications.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Notification, NotificationCount])],
  controllers: [NotificationsController],
  providers: [NotificationsService, NotificationSeekCache],
  exports: [NotificationsService],
})
export class NotificationsModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { EventsModule } from '../events/events.module.js';
import { SchedulingModule } from '../scheduling/scheduling.module.js';
import { DocumentReview } from './entities/document-review.entity.js';
import { ReviewReviewer } from './entities/review-reviewer.entity.js';
import { ReviewRemindersScheduler } from './review-reminders.scheduler.js';
import { ReviewsController } from './reviews.controller.js';
import { ReviewsRepository } from './reviews.repository.js';
import { ReviewsService } from './reviews.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([DocumentReview, ReviewReviewer]),
    DocumentsModule,
    EventsModule,
    AuditModule,
    SchedulingModule,
  ],
  controllers: [ReviewsController],
  providers: [ReviewsService, ReviewsRepository, ReviewRemindersScheduler],
})
export class ReviewsModule {}

import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ClusterJobs } from '../scheduling/cluster-jobs.js';
import { ReviewsService } from './reviews.service.js';

export const REVIEW_NOTICES_JOB = 'review-notices';
/** How often due dates are checked: reminders and overdue notices leave within this of their time. */
export const REVIEW_NOTICES_INTERVAL_MS = 60_000;

/** Sends review.reminder and review.overdue once per review, from one instance of the cluster per turn. */
@Injectable()
export class ReviewRemindersScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReviewRemindersScheduler.name);

  constructor(
    private readonly reviews: ReviewsService,
    private readonly jobs: ClusterJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.schedule({
      name: REVIEW_NOTICES_JOB,
      everyMs: REVIEW_NOTICES_INTERVAL_MS,
      run: async () => {
        const sent = await this.reviews.sendDueNotices();
        if (sent) this.logger.log(`Sent ${sent} review reminder(s) or overdue notice(s)`);
      },
    });
  }

  onApplicationShutdown(): void {
    this.jobs.cancel(REVIEW_NOTICES_JOB);
  }
}

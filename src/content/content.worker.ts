import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { contentConfig } from '../config/configuration.js';
import { JobRunner } from '../jobs/job-runner.js';
import { CONTENT_EXTRACTION_JOB, type ContentExtractionPayload } from '../jobs/content-extraction-job.js';
import { ContentService } from './content.service.js';
import { toolAvailable } from './extractors/processes.js';

const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 10_000;
const POLL_MS = 500;

/**
 * Runs the content.extract jobs of this instance: at most CONTENT_WORKERS at once, each in child
 * processes (poppler, tesseract) or a worker thread (DOCX, ODT), so the event loop stays free.
 */
@Injectable()
export class ContentWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('Content');

  constructor(
    private readonly runner: JobRunner,
    private readonly content: ContentService,
    @Inject(contentConfig.KEY) private readonly config: ConfigType<typeof contentConfig>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.workers === 0) return;
    const ocr = this.config.ocrEnabled ?? (await toolAvailable('tesseract'));
    if (!ocr)
      this.logger.log('OCR is off: images and scanned PDF pages are not read (see README "Content and search").');
    const limits = this.content.limits(ocr);
    this.runner.register(
      CONTENT_EXTRACTION_JOB,
      (job) =>
        this.content.extract(job.payload as unknown as ContentExtractionPayload, limits, job.attempts >= MAX_ATTEMPTS),
      {
        concurrency: this.config.workers,
        // Tools stop at CONTENT_TIMEOUT_SECONDS; a run still unanswered a minute later is retried.
        runTimeoutMs: this.config.timeoutMs + 60_000,
        // The lease outlasts any run, so only a dead worker's job is taken again.
        leaseMs: 2 * this.config.timeoutMs + 60_000,
        maxAttempts: MAX_ATTEMPTS,
        backoffMs: BACKOFF_MS,
        pollMs: POLL_MS,
      },
    );
  }
}

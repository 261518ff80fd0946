import { Module } from '@nestjs/common';
import { OutboxRepository } from './outbox.repository.js';

/** The transactional outbox, imported by every feature that records domain events. */
@Module({
  providers: [OutboxRepository],
  exports: [OutboxRepository],
})
export class EventsModule {}

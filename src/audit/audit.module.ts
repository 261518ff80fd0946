import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditChainService } from './audit-chain.service.js';
import { AuditController } from './audit.controller.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { AuditTrail } from './audit-trail.js';
import { AuditChainHead } from './entities/audit-chain-head.entity.js';
import { AuditEvent } from './entities/audit-event.entity.js';

/**
 * The audit trail: AuditTrail records events (import this module and call
 * `auditTrail.record(tx, context, event)` inside the change's transaction; see AuditTrail), and
 * GET /api/audit-events lists them for holders of audit:read.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent, AuditChainHead])],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditTrail, AuditChainService],
  exports: [AuditTrail, AuditChainService],
})
export class AuditModule {}

import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import type { AuditEvent } from '../entities/audit-event.entity.js';

export class AuditEventDto {
  @ApiProperty({ format: 'uuid', example: '0d6f5a8e-4b1c-4f7e-9a2b-3c4d5e6f7a8b' })
  id: string;

  @ApiProperty({ format: 'date-time', example: '2026-03-02T09:15:27.412Z' })
  at: string;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    example: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
    description: 'Who acted; null for a failed login (no one is authenticated) and for the command-line tools.',
  })
  actorId: string | null;

  @ApiProperty({
    example: 'user.updated',
    maxLength: 64,
    description:
      'auth.login_succeeded, auth.login_failed, auth.logout, auth.password_changed, ' +
      'auth.password_change_failed, user.created, user.updated, user.password_set, role.created, ' +
      'role.updated, role.deleted, document_type.created, document_type.updated, document_type.deleted, ' +
      'project.created, project.updated, project.member_added, project.member_role_changed, ' +
      'project.member_removed, review.requested, review.decided, document.locked, document.unlocked, ' +
      'share.created, share.revoked, share.accessed, share.viewed, share.refused, legal_hold.created, ' +
      'legal_hold.released, document.purged, document.retention_applied, webhook.created, webhook.updated, ' +
      'webhook.secret_rotated, webhook.deleted, webhook.disabled, saved_search.created, saved_search.updated, ' +
      'saved_search.deleted.',
  })
  action: string;

  @ApiProperty({
    example: 'user',
    maxLength: 32,
    description: 'user, role, document_type, project, document, share, legal_hold, webhook, saved_search',
  })
  targetType: string;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, example: '3f2c1b0a-9e8d-4c7b-a6f5-e4d3c2b1a098' })
  targetId: string | null;

  @ApiProperty({ type: 'string', nullable: true, maxLength: 45, example: '203.0.113.7', description: 'Client address' })
  ip: string | null;

  @ApiProperty({ type: 'string', nullable: true, maxLength: 128, example: 'c0a80101-3f2a-4b7e-8c1d-9e0f1a2b3c4d' })
  requestId: string | null;

  @ApiProperty({
    type: 'object',
    maxProperties: 64,
    additionalProperties: {
      type: 'object',
      properties: { from: {}, to: {} },
      additionalProperties: false,
    },
    example: { isActive: { from: true, to: false }, roleIds: { from: ['6f1c…'], to: [] } },
    description:
      'Each changed field with its value before and after (null where none). A failed login records ' +
      'the username as typed in username.to; a project membership change records the field ' +
      'members.<userId>, the role of that user in the project (null: not a member). Never a password or a hash.',
  })
  changes: Record<string, { from: unknown; to: unknown }>;

  static from(event: AuditEvent): AuditEventDto {
    return {
      id: event.id,
      at: event.at.toISOString(),
      actorId: event.actorId,
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId,
      ip: event.ip,
      requestId: event.requestId,
      changes: event.changes,
    };
  }
}

export class AuditEventListResponseDto {
  @ApiProperty({ type: [AuditEventDto], maxItems: 100, description: 'Newest first (at, then id, descending)' })
  events: AuditEventDto[];

  @ApiProperty({ type: PaginationDto })
  pagination: PaginationDto;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { HeldLock } from '../document-locks.repository.js';

export class LockDocumentDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 525_600,
    default: 60,
    example: 120,
    description: 'How long the lock holds; at most LOCK_MAX_MINUTES (480 by default).',
  })
  @IsOptional()
  @Min(1)
  @Max(525_600)
  @IsInt({ message: 'minutes must be an integer' })
  readonly minutes?: number;
}

export class LockHolderDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '0b3e7c1e-2d4a-4f7b-9a55-6c1d2e3f4a5b' })
  id: string;

  @ApiProperty({ maxLength: 255, example: 'alice' })
  username: string;
}

export class DocumentLockDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f' })
  documentId: string;

  @ApiProperty({ type: LockHolderDto })
  holder: LockHolderDto;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T14:30:00.000Z' })
  acquiredAt: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T15:30:00.000Z' })
  expiresAt: string;

  static from(lock: HeldLock): DocumentLockDto {
    return {
      documentId: lock.documentId,
      holder: { id: lock.holderId, username: lock.holderName },
      acquiredAt: lock.acquiredAt.toISOString(),
      expiresAt: lock.expiresAt.toISOString(),
    };
  }
}

export class DocumentLockResponseDto {
  @ApiPropertyOptional({ type: DocumentLockDto, description: 'Absent when the document is not checked out' })
  lock?: DocumentLockDto;
}

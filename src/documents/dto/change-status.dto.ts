import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { DOCUMENT_STATUSES, type DocumentStatus } from '../entities/document.entity.js';

export class ChangeStatusDto {
  @ApiProperty({
    enum: DOCUMENT_STATUSES,
    example: 'in_review',
    description:
      'The status to move to: draft → in_review (uploader or manager), in_review → draft or published, ' +
      'published → archived, archived → draft (project manager or documents:publish).',
  })
  @IsIn(DOCUMENT_STATUSES, { message: `status must be one of: ${DOCUMENT_STATUSES.join(', ')}` })
  readonly status: DocumentStatus;
}

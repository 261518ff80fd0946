import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ContentQueryDto } from '../../documents/dto/document-files-query.dto.js';
import { PREVIEW_SIZES, type PreviewSize } from '../entities/document-preview.entity.js';

const SIZES = Object.keys(PREVIEW_SIZES) as PreviewSize[];

/** `?size=small|large&version=N` of a preview. */
export class PreviewQueryDto extends ContentQueryDto {
  @ApiPropertyOptional({
    enum: SIZES,
    default: 'small',
    description: 'small: at most 256 px on the long side; large: at most 1,024 px.',
  })
  @IsOptional()
  @IsIn(SIZES, { message: `size must be one of: ${SIZES.join(', ')}` })
  readonly size?: PreviewSize;
}

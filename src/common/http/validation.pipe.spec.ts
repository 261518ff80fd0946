import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { toInteger } from '../validation/query.transforms.js';
import { createValidationPipe } from './validation.pipe.js';

class PageQuery {
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(100)
  @IsInt({ message: 'limit must be an integer' })
  limit: number = 20;

  @IsOptional()
  @IsIn(['read', 'sent'])
  status?: string;

  @IsOptional()
  @IsString({ each: true })
  tag?: string[];
}

const asQuery = { type: 'query', metatype: PageQuery } as const;

describe('validation pipe', () => {
  it('answers a DTO instance with converted values', async () => {
    const dto = (await createValidationPipe().transform({ limit: '5', tag: ['a', 'b'] }, asQuery)) as PageQuery;
    expect(dto).toBeInstanceOf(PageQuery);
    expect(dto).toEqual(Object.assign(new PageQuery(), { limit: 5, tag: ['a', 'b'] }));
  });

  it('refuses invalid values and unknown properties with validation_failed and one sentence', async () => {
    const pipe = createValidationPipe();
    await expect(pipe.transform({ limit: '500' }, asQuery)).rejects.toMatchObject({
      code: 'validation_failed',
      message: 'limit must not be greater than 100',
    });
    await expect(pipe.transform({ limit: '5', status: 'nope' }, asQuery)).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(pipe.transform({ limit: '5', extra: '1', more: '2' }, asQuery)).rejects.toMatchObject({
      message: 'property extra should not exist; property more should not exist',
    });
    await expect(pipe.transform({ limit: { deep: '1' } }, asQuery)).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});

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

describe('validation pipe, query DTOs', () => {
  it('answers a repeated query with an equal DTO of its own, every time', async () => {
    const pipe = createValidationPipe({ checkedRequestValues: true });
    const first = (await pipe.transform({ limit: '5', tag: ['a', 'b'] }, asQuery)) as PageQuery;
    const again = (await pipe.transform({ limit: '5', tag: ['a', 'b'] }, asQuery)) as PageQuery;
    expect(first).toBeInstanceOf(PageQuery);
    expect(again).toBeInstanceOf(PageQuery);
    expect(again).toEqual(first);
    expect(again.limit).toBe(5);
    expect(again).not.toBe(first);
    // A handler changing its DTO changes nothing for the next request with the same query.
    again.tag!.push('c');
    again.limit = 99;
    const third = (await pipe.transform({ limit: '5', tag: ['a', 'b'] }, asQuery)) as PageQuery;
    expect(third.tag).toEqual(['a', 'b']);
    expect(third.limit).toBe(5);
    expect(first.tag).toEqual(['a', 'b']);
  });

  it('refuses an invalid query every time it comes, whatever validated before', async () => {
    const pipe = createValidationPipe({ checkedRequestValues: true });
    await pipe.transform({ limit: '5' }, asQuery);
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(pipe.transform({ limit: '500' }, asQuery)).rejects.toMatchObject({
        code: 'validation_failed',
        message: 'limit must not be greater than 100',
      });
      await expect(pipe.transform({ limit: '5', status: 'nope' }, asQuery)).rejects.toMatchObject({
        code: 'validation_failed',
      });
      await expect(pipe.transform({ limit: '5', extra: '1' }, asQuery)).rejects.toMatchObject({
        message: 'property extra should not exist',
      });
    }
  });

  it('validates a query with a non-string value as it comes (no shortcut)', async () => {
    const pipe = createValidationPipe({ checkedRequestValues: true });
    await expect(pipe.transform({ limit: { deep: '1' } }, asQuery)).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(pipe.transform({ limit: { deep: '1' } }, asQuery)).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});

describe('validation pipe, values not from a checked request', () => {
  const asBody = { type: 'body', metatype: PageQuery } as const;

  it("keeps Nest's walks (e.g. for multipart fields): a sparse array's gaps are closed in place", async () => {
    // eslint-disable-next-line no-sparse-arrays
    const sparse = { tag: [, 'a', , 'b'] };
    const dto = (await createValidationPipe({ checkedRequestValues: false }).transform(sparse, asBody)) as PageQuery;
    expect(dto.tag).toEqual(['a', 'b']);
    expect(sparse.tag).toEqual(['a', 'b']);
    expect(Object.keys(sparse.tag)).toEqual(['0', '1']);
  });
});

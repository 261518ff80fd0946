import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { uuidParam } from '../pipes/uuid.pipe.js';
import { IsUuidField } from './uuid.validators.js';

class Query {
  @IsUuidField()
  projectId: string;
}

const ID = '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed';

describe('UUIDs in any letter case', () => {
  it('normalises a uuid field to lower case and refuses anything else naming the field', async () => {
    const query = plainToInstance(Query, { projectId: ID.toUpperCase() });
    expect(await validate(query)).toEqual([]);
    expect(query.projectId).toBe(ID);

    const bad = plainToInstance(Query, { projectId: 'not-a-uuid' });
    const [error] = await validate(bad);
    expect(Object.values(error.constraints!)).toEqual(['projectId must be a UUID']);
  });

  it('normalises path ids the same way', () => {
    const pipe = uuidParam('documentId');
    expect(pipe.transform('1B9D6BCD-BBFD-4B2D-9B5D-AB8DFBBD4BED', { type: 'param' })).toBe(ID);
    expect(() => pipe.transform('1b9d6bcd', { type: 'param' })).toThrow('documentId must be a UUID');
  });
});

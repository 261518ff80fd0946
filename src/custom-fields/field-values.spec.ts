import { describe, expect, it } from 'vitest';
import { DocumentField, type FieldType } from './entities/document-field.entity.js';
import { checkedValue, parameterValue, valueRow } from './field-values.js';

const field = (type: FieldType, extra: Partial<DocumentField> = {}) =>
  Object.assign(new DocumentField(), { id: 'f', key: 'k', type, options: null, min: null, max: null, ...extra });

describe('custom field values', () => {
  it('accepts a value of each type in its stored form', () => {
    expect(checkedValue(field('number', { min: 0, max: 10 }), 2.5)).toBe(2.5);
    expect(checkedValue(field('date'), '2024-02-29')).toBe('2024-02-29');
    expect(checkedValue(field('boolean'), false)).toBe(false);
    expect(checkedValue(field('select', { options: ['a', 'b'] }), 'b')).toBe('b');
    expect(checkedValue(field('user'), '1B9D6BCD-BBFD-4B2D-9B5D-AB8DFBBD4BED')).toBe(
      '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
    );
    expect(checkedValue(field('url'), 'http://example.com/a?b')).toBe('http://example.com/a?b');
    expect(checkedValue(field('text', { max: 3 }), 'zoë')).toBe('zoë');
  });

  it('refuses wrong values, naming the field', () => {
    const refused: [DocumentField, unknown][] = [
      [field('number'), '1'],
      [field('number'), Number.NaN],
      [field('number', { max: 1 }), 2],
      [field('date'), '2023-02-29'],
      [field('date'), '2024-2-1'],
      [field('boolean'), 1],
      [field('select', { options: ['a'] }), 'A'],
      [field('user'), 'bob'],
      [field('url'), 'javascript:alert(1)'],
      [field('url'), 'example.com'],
      [field('text', { max: 2 }), 'abc'],
      [field('text', { min: 2 }), 'a'],
    ];
    for (const [definition, value] of refused) {
      expect(() => checkedValue(definition, value), JSON.stringify(value)).toThrow(/^fields\.k /);
    }
  });

  it('stores numbers and booleans as numbers, the rest as text; reads list parameters the same way', () => {
    expect(valueRow('d', field('boolean'), true)).toMatchObject({ textValue: null, numberValue: 1 });
    expect(valueRow('d', field('date'), '2026-01-02')).toMatchObject({ textValue: '2026-01-02', numberValue: null });
    expect(parameterValue(field('boolean'), 'field.k', 'false')).toBe(0);
    expect(parameterValue(field('number'), 'field.k', '-1.5')).toBe(-1.5);
    expect(() => parameterValue(field('number'), 'field.k', '')).toThrow(/field\.k/);
    expect(() => parameterValue(field('date'), 'field.k', '2026-02-30')).toThrow(/field\.k/);
  });
});

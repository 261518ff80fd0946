import { describe, expect, it } from 'vitest';
import { inspectJson } from './json-bounds.validator.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('inspectJson', () => {
  it('measures depth: scalars 0, an object or array 1 per level', () => {
    expect(inspectJson(5).depth).toBe(0);
    expect(inspectJson({}).depth).toBe(1);
    expect(inspectJson({ a: [1, { b: 2 }] }).depth).toBe(3);
    expect(inspectJson(nested(8)).depth).toBe(8);
  });

  it('handles hostile depth without recursion', () => {
    expect(() => inspectJson(nested(200_000))).not.toThrow();
    expect(inspectJson(nested(200_000), 32).depth).toBe(33);
  });

  it('finds prototype-polluting keys at any depth', () => {
    expect(inspectJson({ a: { b: [{ constructor: 1 }] } }).forbiddenKey).toBe('constructor');
    expect(inspectJson(JSON.parse('{"x":{"__proto__":{"polluted":true}}}')).forbiddenKey).toBe('__proto__');
    expect(inspectJson({ prototype: 1 }).forbiddenKey).toBe('prototype');
    expect(inspectJson({ constructors: 1, proto: 2 }).forbiddenKey).toBeUndefined();
  });
});

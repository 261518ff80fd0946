import { IsInt, IsString, MetadataStorage, MinLength, validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { memoizeValidationRules } from './validation-metadata-cache.js';

// A storage of its own per test (the global one is shared with every DTO of the service).
function storages(): { plain: MetadataStorage; memoized: MetadataStorage } {
  const plain = new MetadataStorage();
  const memoized = new MetadataStorage();
  memoizeValidationRules(memoized);
  return { plain, memoized };
}

/** Registers the same rules in both storages, as decorators would. */
function register(target: Function, property: string, groups: string[] | undefined, ...into: MetadataStorage[]) {
  for (const storage of into) {
    storage.addValidationMetadata({
      type: 'isDefined',
      target,
      propertyName: property,
      groups,
      always: undefined,
      each: false,
      context: undefined,
      constraints: [],
      validationTypeOptions: undefined,
      constraintCls: undefined,
      name: undefined,
      message: undefined,
    } as unknown as Parameters<MetadataStorage['addValidationMetadata']>[0]);
  }
}

const names = (rules: { propertyName: string }[]) => rules.map((rule) => rule.propertyName).sort();

describe('memoized validation rules', () => {
  it("answers what class-validator's own lookup answers: own and inherited rules, by groups and options", () => {
    const { plain, memoized } = storages();
    class Base {}
    class Child extends Base {}
    class Unrelated {}
    register(Base, 'inherited', undefined, plain, memoized);
    register(Child, 'own', undefined, plain, memoized);
    register(Child, 'grouped', ['admin'], plain, memoized);
    register(Unrelated, 'elsewhere', undefined, plain, memoized);

    const cases: [Function, boolean, boolean, string[] | undefined][] = [
      [Child, false, false, undefined],
      [Child, false, true, undefined],
      [Child, true, false, undefined],
      [Child, false, false, ['admin']],
      [Child, false, false, ['other']],
      [Base, false, false, undefined],
      [Unrelated, false, false, undefined],
    ];
    for (const [target, always, strictGroups, groups] of cases) {
      const expected = names(plain.getTargetValidationMetadatas(target, '', always, strictGroups, groups));
      // Twice: the second answer comes from the cache.
      expect(names(memoized.getTargetValidationMetadatas(target, '', always, strictGroups, groups))).toEqual(expected);
      expect(names(memoized.getTargetValidationMetadatas(target, '', always, strictGroups, groups))).toEqual(expected);
    }
    expect(names(memoized.getTargetValidationMetadatas(Child, '', false, false, undefined))).toEqual([
      'grouped',
      'inherited',
      'own',
    ]);
    expect(names(memoized.getTargetValidationMetadatas(Child, '', false, true, undefined))).toEqual([
      'inherited',
      'own',
    ]);
  });

  it('looks a class up once, and again after any rule is registered', () => {
    const { memoized } = storages();
    class Target {}
    register(Target, 'first', undefined, memoized);
    const first = memoized.getTargetValidationMetadatas(Target, '', false, false, undefined);
    expect(memoized.getTargetValidationMetadatas(Target, '', false, false, undefined)).toBe(first);

    register(Target, 'second', undefined, memoized);
    const after = memoized.getTargetValidationMetadatas(Target, '', false, false, undefined);
    expect(after).not.toBe(first);
    expect(names(after)).toEqual(['first', 'second']);
  });

  it('is installed once on the global storage, and validation still finds every rule', async () => {
    memoizeValidationRules();
    memoizeValidationRules();
    class Base {
      @IsInt()
      count!: unknown;
    }
    class Body extends Base {
      @IsString()
      @MinLength(3)
      title!: unknown;
    }
    const body = Object.assign(new Body(), { count: 'x', title: 'ab' });
    for (let round = 0; round < 2; round++) {
      const errors = await validate(body);
      expect(errors.map((error) => [error.property, Object.keys(error.constraints ?? {}).sort()])).toEqual([
        ['title', ['minLength']],
        ['count', ['isInt']],
      ]);
    }
  });
});

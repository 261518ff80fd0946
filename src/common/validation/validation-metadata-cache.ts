import { getMetadataStorage, type MetadataStorage } from 'class-validator';

type RulesLookup = MetadataStorage['getTargetValidationMetadatas'];
type Rules = ReturnType<RulesLookup>;

const MEMOIZED = Symbol.for('dms.validationRulesMemoized');

/**
 * Makes class-validator look a class's rules up once instead of on every validate().
 *
 * Its `getTargetValidationMetadatas` resolves a class's own and inherited rules by testing every
 * class that has rules (`instanceof` against each, typestack/class-validator#2686): with this
 * service's DTOs that was the largest single cost of validating a request body (~40 µs of a
 * document update's CPU profile). The answer only changes when rules are registered, which
 * happens as classes load, before they are validated; any registration still empties the cache.
 * The cached arrays are shared: class-validator only reads them. Idempotent (one global storage).
 */
export function memoizeValidationRules(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [MEMOIZED]?: true };
  if (marked[MEMOIZED]) return;
  marked[MEMOIZED] = true;

  const lookUp: RulesLookup = storage.getTargetValidationMetadatas.bind(storage);
  const register = storage.addValidationMetadata.bind(storage);
  let cache = new WeakMap<object, Map<string, Rules>>();

  storage.addValidationMetadata = (metadata) => {
    cache = new WeakMap();
    register(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    // A schema name or a missing constructor: rare, and no WeakMap key.
    if (typeof target !== 'function') return lookUp(target, schema, always, strictGroups, groups);
    const key = `${schema ?? ''}|${always ? 1 : 0}|${strictGroups ? 1 : 0}|${groups?.length ? JSON.stringify(groups) : ''}`;
    let byOptions = cache.get(target);
    if (!byOptions) cache.set(target, (byOptions = new Map()));
    let rules = byOptions.get(key);
    if (!rules) byOptions.set(key, (rules = lookUp(target, schema, always, strictGroups, groups)));
    return rules;
  };
}

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, chainHash, GENESIS_HASH, type ChainedFields } from './audit-chain.js';

const EVENT: ChainedFields = {
  sequence: 1,
  id: '0d6f5a8e-4b1c-4f7e-9a2b-3c4d5e6f7a8b',
  at: '2026-03-02T09:15:27.412Z',
  actorId: null,
  action: 'role.created',
  targetType: 'role',
  targetId: '3f2c1b0a-9e8d-4c7b-a6f5-e4d3c2b1a098',
  ip: '203.0.113.7',
  requestId: null,
  changes: { name: { to: 'auditor', from: null } },
};

describe('the audit chain canonical form', () => {
  it('sorts keys at every depth, writes no whitespace, keeps array order and JSON.stringify strings', () => {
    expect(canonicalJson({ b: [3, { d: 1, c: 'é"\n' }], a: null, u: undefined })).toBe(
      '{"a":null,"b":[3,{"c":"é\\"\\n","d":1}]}',
    );
  });

  it('hashes previousHash then the canonical event, as hex', () => {
    const expected = createHash('sha256')
      .update(
        GENESIS_HASH +
          '{"action":"role.created","actorId":null,"at":"2026-03-02T09:15:27.412Z",' +
          '"changes":{"name":{"from":null,"to":"auditor"}},"id":"0d6f5a8e-4b1c-4f7e-9a2b-3c4d5e6f7a8b",' +
          '"ip":"203.0.113.7","requestId":null,"sequence":1,"targetId":"3f2c1b0a-9e8d-4c7b-a6f5-e4d3c2b1a098",' +
          '"targetType":"role"}',
      )
      .digest('hex');
    expect(chainHash(GENESIS_HASH, EVENT)).toBe(expected);
    expect(chainHash(expected, { ...EVENT, sequence: 2 })).not.toBe(chainHash(GENESIS_HASH, { ...EVENT, sequence: 2 }));
  });
});

import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { ApiError } from '../common/errors/error-codes.js';
import { identityKey } from '../common/text/identity-key.js';
import { codePointLength } from '../common/text/unicode.js';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_BYTES = 1024;
/** zxcvbn's score runs 0..4; 3 is "safely unguessable: moderate protection from offline slow-hash scenario". */
export const MIN_PASSWORD_SCORE = 3;
/**
 * zxcvbn's matching is superlinear in the length (a 256-character repetitive password costs about a
 * second of CPU); it rates only this prefix, which is plenty to tell a strong password.
 */
const RATED_PREFIX = 100;

/** What the account the password is for is called: zxcvbn penalises passwords built from these. */
export interface PasswordOwner {
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
}

let estimator: Promise<ZxcvbnFactory> | undefined;

/**
 * Built on first use: the dictionaries take ~40 MB of memory and ~300 ms to load, which a running
 * service pays only once someone sets a password (and other commands not at all).
 */
function strength(): Promise<ZxcvbnFactory> {
  estimator ??= Promise.all([import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en')]).then(
    ([common, english]) =>
      new ZxcvbnFactory({
        dictionary: { ...common.dictionary, ...english.dictionary },
        graphs: common.adjacencyGraphs,
        translations: english.translations,
        maxLength: RATED_PREFIX,
      }),
    (error: unknown) => {
      estimator = undefined;
      throw error;
    },
  );
  return estimator;
}

/**
 * The one password rule, for every password set anywhere (API, CLI, seed), after NIST SP 800-63B:
 * a length floor and a check against what attackers try first (zxcvbn's dictionaries of common
 * passwords, names and words, keyboard patterns, and the account's own names), no composition
 * rules. Returns the sentence to answer with, or undefined when the password is acceptable.
 */
export async function passwordWeakness(password: string, owner: PasswordOwner): Promise<string | undefined> {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    return `The password must be at most ${MAX_PASSWORD_BYTES} bytes long.`;
  }
  if (codePointLength(password) < MIN_PASSWORD_LENGTH) {
    return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  }
  if (owner.username && identityKey(password).includes(identityKey(owner.username))) {
    return 'The password must not contain the username.';
  }
  const inputs = [owner.username, owner.email, owner.email?.split('@')[0], owner.firstName, owner.lastName].filter(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
  const result = (await strength()).check(password, inputs);
  if (result.score >= MIN_PASSWORD_SCORE) return undefined;
  const feedback = [result.feedback.warning, ...result.feedback.suggestions].filter(Boolean).join(' ');
  return (
    `The password is too easy to guess (strength ${result.score} of 4, at least ${MIN_PASSWORD_SCORE} needed).` +
    (feedback ? ` ${feedback}` : ' Use a longer passphrase of uncommon words.')
  );
}

/** Throws 400 weak_password when the password breaks the policy (see passwordWeakness). */
export async function assertPasswordPolicy(password: string, owner: PasswordOwner): Promise<void> {
  const weakness = await passwordWeakness(password, owner);
  if (weakness) throw new ApiError('weak_password', weakness);
}

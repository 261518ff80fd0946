import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { identityKey } from '../common/text/identity-key.js';
import { isMysql } from './dialect.js';

interface UserRow {
  id: string;
  username: string;
  email: string;
}

/**
 * users.usernameKey and users.emailKey: identityKey() of the username and the e-mail address,
 * uniquely indexed, so two accounts cannot differ only by case or Unicode form. The keys are
 * computed here in JavaScript (SQLite has no Unicode case folding) and compared byte for byte
 * (utf8mb4_bin on MySQL, as SQLite does). Existing accounts that fold to the same key stop the
 * migration with their usernames: merging or renaming accounts is a decision for a person.
 */
export class UserIdentityKeys1763800000007 implements MigrationInterface {
  name = 'UserIdentityKeys1763800000007';

  async up(queryRunner: QueryRunner): Promise<void> {
    const users = (await queryRunner.query('SELECT id, username, email FROM users')) as UserRow[];
    const keyed = users.map((user) => ({
      ...user,
      usernameKey: identityKey(user.username),
      emailKey: identityKey(user.email),
    }));
    const clashes = [
      ...collisions(keyed, 'usernameKey').map((names) => `usernames ${names}`),
      ...collisions(keyed, 'emailKey').map((names) => `e-mail addresses of ${names}`),
    ];
    if (clashes.length) {
      throw new Error(
        `UserIdentityKeys: these accounts are the same ignoring case and Unicode form; rename or ` +
          `deactivate-and-rename all but one of each group, then run the migrations again: ${clashes.join('; ')}.`,
      );
    }

    const binary = isMysql(queryRunner) ? { collation: 'utf8mb4_bin' } : {};
    const column = (name: string, length: string, isNullable: boolean) =>
      new TableColumn({ name, type: 'varchar', length, isNullable, ...binary });
    await queryRunner.addColumns('users', [column('usernameKey', '255', true), column('emailKey', '320', true)]);
    for (const user of keyed) {
      await queryRunner.query('UPDATE users SET usernameKey = ?, emailKey = ? WHERE id = ?', [
        user.usernameKey,
        user.emailKey,
        user.id,
      ]);
    }
    const changes = [
      { oldColumn: column('usernameKey', '255', true), newColumn: column('usernameKey', '255', false) },
      { oldColumn: column('emailKey', '320', true), newColumn: column('emailKey', '320', false) },
    ];
    if (!isMysql(queryRunner)) {
      // SQLite rebuilds the table here anyway: write isActive's default as 1, the way TypeORM
      // renders the entity's `default: true`, rather than InitialSchema's equivalent `true`.
      const isActive = (value: string) =>
        new TableColumn({ name: 'isActive', type: 'boolean', isNullable: false, default: value });
      changes.push({ oldColumn: isActive('true'), newColumn: isActive('1') });
    }
    await queryRunner.changeColumns('users', changes);
    await queryRunner.createIndices('users', [
      new TableIndex({ name: 'UQ_users_username_key', columnNames: ['usernameKey'], isUnique: true }),
      new TableIndex({ name: 'UQ_users_email_key', columnNames: ['emailKey'], isUnique: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('users', 'UQ_users_email_key');
    await queryRunner.dropIndex('users', 'UQ_users_username_key');
    await queryRunner.dropColumns('users', ['emailKey', 'usernameKey']);
  }
}

/** Each group of two or more users sharing a key, as `"Alice", "alice"` (code-point order, whatever the row order). */
function collisions<K extends 'usernameKey' | 'emailKey'>(users: (UserRow & Record<K, string>)[], key: K): string[] {
  const byKey = new Map<string, string[]>();
  for (const user of users) byKey.set(user[key], [...(byKey.get(user[key]) ?? []), user.username]);
  return [...byKey.values()]
    .filter((names) => names.length > 1)
    .map((names) =>
      [...names]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((name) => JSON.stringify(name))
        .join(', '),
    );
}

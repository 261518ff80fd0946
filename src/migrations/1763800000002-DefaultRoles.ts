import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The roles every installation starts with, so `user:create --roles admin` works on a fresh
 * production database. Permissions map a resource to actions; documents:update = any document.
 */
export const DEFAULT_ROLES = [
  {
    id: '3f7c3a52-6b1e-4c8e-9a57-0c1d4e0a0001',
    name: 'admin',
    permissions: { documents: ['update'], notifications: ['read'] },
  },
  { id: '3f7c3a52-6b1e-4c8e-9a57-0c1d4e0a0002', name: 'editor', permissions: { documents: ['update'] } },
  { id: '3f7c3a52-6b1e-4c8e-9a57-0c1d4e0a0003', name: 'user', permissions: { notifications: ['read'] } },
] as const;

export class DefaultRoles1763800000002 implements MigrationInterface {
  name = 'DefaultRoles1763800000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const role of DEFAULT_ROLES) {
      const existing = await queryRunner.query('SELECT id FROM roles WHERE name = ?', [role.name]);
      if ((existing as unknown[]).length) continue;
      await queryRunner.query('INSERT INTO roles (id, name, permissions) VALUES (?, ?, ?)', [
        role.id,
        role.name,
        JSON.stringify(role.permissions),
      ]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Roles still held by users stay; removing them would strip access silently.
    for (const role of DEFAULT_ROLES) {
      await queryRunner.query(
        'DELETE FROM roles WHERE id = ? AND NOT EXISTS (SELECT 1 FROM user_roles WHERE roleId = ?)',
        [role.id, role.id],
      );
    }
  }
}

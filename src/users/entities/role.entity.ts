import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Permissions map a resource to the actions a role may take on it, e.g.
 * `{ "documents": ["update"] }` lets holders update any document.
 */
export type RolePermissions = Record<string, string[]>;

@Entity({ name: 'roles' })
export class Role {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64, unique: true })
  name: string;

  @Column({ type: 'simple-json' })
  permissions: RolePermissions;
}

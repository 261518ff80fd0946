import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';

/**
 * Permissions map a resource to the actions a role may take on it, e.g.
 * `{ "documents": ["update"] }` lets holders update any document.
 */
export type RolePermissions = Record<string, string[]>;

// The unique's name is the one TypeORM's Table API generated for InitialSchema's `isUnique` column.
@Entity({ name: 'roles' })
@Unique('UQ_648e3f5447f725579d7d4ffdfb7', ['name'])
export class Role {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'simple-json' })
  permissions: RolePermissions;
}

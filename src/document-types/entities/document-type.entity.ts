import { BeforeInsert, Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { identityKey } from '../../common/text/identity-key.js';

// The unique's name is the one TypeORM's Table API generated for InitialSchema's `isUnique` column.
@Entity({ name: 'document_types' })
@Unique('UQ_803cd247b7c1c8d91b30a3eb210', ['name'])
@Index('UQ_document_types_name_key', ['nameKey'], { unique: true })
export class DocumentType {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /**
   * identityKey(name), uniquely indexed, so "Contract" and "CONTRACT" cannot both exist (migration
   * 1763800000021). Nullable only so that rows inserted as plain objects by other code (fixtures)
   * still insert; DocumentTypesService always sets it and compares every name by its key anyway.
   */
  @Column({ type: 'varchar', length: 255, nullable: true, collation: 'utf8mb4_bin' })
  nameKey: string | null;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  /** Entities saved or inserted as instances (the seed) get their key without each caller computing it. */
  @BeforeInsert()
  protected fillNameKey(): void {
    this.nameKey ??= identityKey(this.name);
  }
}

import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';

// The unique's name is the one TypeORM's Table API generated for InitialSchema's `isUnique` column.
@Entity({ name: 'document_types' })
@Unique('UQ_803cd247b7c1c8d91b30a3eb210', ['name'])
export class DocumentType {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}

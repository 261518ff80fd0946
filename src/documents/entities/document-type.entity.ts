import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'document_types' })
export class DocumentType {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 100, unique: true })
  name: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}

import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { DocumentType } from '../../document-types/entities/document-type.entity.js';

export const FIELD_TYPES = ['text', 'number', 'date', 'boolean', 'select', 'user', 'url'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

const numberColumn = {
  to: (v: number | null) => v,
  from: (v: string | number | null) => (v === null ? null : Number(v)),
};

/** A typed field a document type declares (migration 1763800000150); its key is unique within the type. */
@Entity({ name: 'document_fields' })
@Index('UQ_document_fields_type_key', ['documentTypeId', 'key'], { unique: true })
export class DocumentField {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => DocumentType, { name: 'FK_document_fields_type', onDelete: 'CASCADE' })
  documentTypeId: string;

  @Column({ type: 'varchar', length: 64, collation: 'utf8mb4_bin' })
  key: string;

  @Column({ type: 'varchar', length: 100 })
  label: string;

  @Column({ type: 'varchar', length: 16 })
  type: FieldType;

  @Column({ type: 'boolean' })
  required: boolean;

  /** The choices of a select field (JSON array of strings), else null. */
  @Column({ type: 'simple-json', nullable: true })
  options: string[] | null;

  /** Bounds of a number field's value, or of a text field's length in code points; null for other types. */
  @Column({ type: 'double', nullable: true, transformer: numberColumn })
  min: number | null;

  @Column({ type: 'double', nullable: true, transformer: numberColumn })
  max: number | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}

import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';
import { DocumentField } from './document-field.entity.js';

/**
 * One document's value of one field, typed for the list's filters and sorts: text, date
 * (YYYY-MM-DD), select, user and url in textValue; number and boolean (0/1) in numberValue. Each
 * column is indexed after the fieldId, so a filter or sort on one field reads one index range.
 */
@Entity({ name: 'document_field_values' })
@Index('IDX_document_field_values_text', ['fieldId', 'textValue', 'documentId'])
@Index('IDX_document_field_values_number', ['fieldId', 'numberValue', 'documentId'])
export class DocumentFieldValue {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_field_values_document', onDelete: 'CASCADE' })
  documentId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => DocumentField, { name: 'FK_document_field_values_field', onDelete: 'CASCADE' })
  fieldId: string;

  @Column({ type: 'varchar', length: 500, nullable: true, collation: 'utf8mb4_bin' })
  textValue: string | null;

  @Column({
    type: 'double',
    nullable: true,
    transformer: { to: (v: number | null) => v, from: (v: string | number | null) => (v === null ? null : Number(v)) },
  })
  numberValue: number | null;
}

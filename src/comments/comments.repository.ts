import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, In, Repository } from 'typeorm';
import type { KeysetCursor } from '../common/pagination/keyset-cursor.js';
import { identityKey } from '../common/text/identity-key.js';
import type { Tx } from '../database/transactions.js';
import { User } from '../users/entities/user.entity.js';
import { Comment } from './entities/comment.entity.js';

export type CommentWithAuthor = Comment & { author: User };

@Injectable()
export class CommentsRepository {
  constructor(
    @InjectRepository(Comment) private readonly comments: Repository<Comment>,
    @InjectRepository(User) private readonly users: Repository<User>,
  ) {}

  /** One page of a document's comments, oldest first, with their authors; `limit + 1` tells if more follow. */
  async page(documentId: string, limit: number, after?: KeysetCursor): Promise<CommentWithAuthor[]> {
    const query = this.comments
      .createQueryBuilder('c')
      .innerJoinAndSelect('c.author', 'author')
      .where('c.documentId = :documentId', { documentId })
      .orderBy('c.createdAt', 'ASC')
      .addOrderBy('c.id', 'ASC')
      .take(limit + 1);
    if (after) {
      query.andWhere(
        new Brackets((keyset) =>
          keyset
            .where('c.createdAt > :at', { at: after.at })
            .orWhere('c.createdAt = :at AND c.id > :id', { at: after.at, id: after.id }),
        ),
      );
    }
    return (await query.getMany()) as CommentWithAuthor[];
  }

  count(documentId: string): Promise<number> {
    return this.comments.countBy({ documentId });
  }

  async findWithAuthor(id: string): Promise<CommentWithAuthor | null> {
    return (await this.comments.findOne({ where: { id }, relations: { author: true } })) as CommentWithAuthor | null;
  }

  /** Active users named by `usernames`, compared as the users' unique key (case and Unicode form ignored). */
  async activeUsersNamed(usernames: string[]): Promise<User[]> {
    if (usernames.length === 0) return [];
    return this.users.findBy({ usernameKey: In(usernames.map(identityKey)), isActive: true });
  }

  async insert(tx: Tx, comment: Comment): Promise<void> {
    await tx.getRepository(Comment).insert(comment);
  }

  async updateBody(tx: Tx, id: string, body: string, editedAt: Date): Promise<void> {
    await tx.getRepository(Comment).update({ id }, { body, editedAt });
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.getRepository(Comment).delete({ id });
  }
}

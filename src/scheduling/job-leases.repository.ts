import { Injectable } from '@nestjs/common';
import { LessThanOrEqual } from 'typeorm';
import { isUniqueViolation } from '../database/database-errors.js';
import { Transactions } from '../database/transactions.js';
import { JobLease } from './entities/job-lease.entity.js';

@Injectable()
export class JobLeasesRepository {
  constructor(private readonly transactions: Transactions) {}

  /** Takes the lease if it is free, expired or already ours; true when `holder` now holds it until `until`. */
  take(name: string, holder: string, now: Date, until: Date): Promise<boolean> {
    return this.transactions.run(async (tx) => {
      const expired = await tx.update(
        JobLease,
        { name, expiresAt: LessThanOrEqual(now) },
        { holder, expiresAt: until },
      );
      if (expired.affected) return true;
      const renewed = await tx.update(JobLease, { name, holder }, { expiresAt: until });
      if (renewed.affected) return true;
      if (await tx.existsBy(JobLease, { name })) return false;
      try {
        await tx.insert(JobLease, { name, holder, expiresAt: until });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    });
  }

  async release(name: string, holder: string, now: Date): Promise<void> {
    await this.transactions.run((tx) => tx.update(JobLease, { name, holder }, { expiresAt: now }));
  }
}

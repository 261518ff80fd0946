import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CommentsModule } from './comments/comments.module.js';
import { ClockModule } from './common/time/clock.module.js';
import { ContentModule } from './content/content.module.js';
import { InFlightRequests } from './common/http/in-flight-requests.js';
import { CONFIG_NAMESPACES } from './config/configuration.js';
import { SCHEMA } from './data-source.js';
import { DatabaseModule } from './database/database.module.js';
import { DocumentLocksModule } from './document-locks/document-locks.module.js';
import { DocumentTypesModule } from './document-types/document-types.module.js';
import { DocumentsModule } from './documents/documents.module.js';
import { HealthModule } from './health/health.module.js';
import { LegalHoldsModule } from './legal-holds/legal-holds.module.js';
import { CustomFieldsModule } from './custom-fields/custom-fields.module.js';
import { RetentionModule } from './retention/retention.module.js';
import { JobsModule } from './jobs/jobs.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { ReviewsModule } from './reviews/reviews.module.js';
import { RolesModule } from './roles/roles.module.js';
import { ProjectsModule } from './projects/projects.module.js';
import { SharesModule } from './shares/shares.module.js';
import { UsersModule } from './users/users.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { SavedSearchesModule } from './saved-searches/saved-searches.module.js';
import { WatchesModule } from './watches/watches.module.js';

@Module({
  imports: [
    // The namespaces come from the environment validated once per process (src/config/configuration.ts,
    // which also reads ./.env); ConfigService hands out those namespaces, never raw process.env.
    // Not forRoot's `validate`: it runs when this file is imported, on process.env only (a test could
    // not give each app its own environment) and before main.ts can report a bad variable cleanly.
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      skipProcessEnv: true,
      load: [...CONFIG_NAMESPACES],
    }),
    DatabaseModule.forRoot(SCHEMA),
    ClockModule,
    JobsModule,
    UsersModule,
    AuthModule,
    RolesModule,
    DocumentTypesModule,
    AuditModule,
    ProjectsModule,
    DocumentsModule,
    CommentsModule,
    ReviewsModule,
    DocumentLocksModule,
    SharesModule,
    LegalHoldsModule,
    CustomFieldsModule,
    RetentionModule,
    WatchesModule,
    ContentModule,
    NotificationsModule,
    WebhooksModule,
    SavedSearchesModule,
    HealthModule,
  ],
  // Here, in the root module: its shutdown hook runs first, before the database's (see InFlightRequests).
  providers: [InFlightRequests],
})
export class AppModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { EventsModule } from '../events/events.module.js';
import { ProjectMember } from './entities/project-member.entity.js';
import { Project } from './entities/project.entity.js';
import { ProjectMembership } from './project-membership.service.js';
import { ProjectsController } from './projects.controller.js';
import { ProjectsRepository } from './projects.repository.js';
import { ProjectsService } from './projects.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Project, ProjectMember]), AuditModule, EventsModule],
  controllers: [ProjectsController],
  providers: [ProjectsRepository, ProjectMembership, ProjectsService],
  exports: [ProjectMembership, ProjectsService],
})
export class ProjectsModule {}

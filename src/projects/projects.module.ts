import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProjectMember } from './entities/project-member.entity.js';
import { Project } from './entities/project.entity.js';
import { ProjectMembership } from './project-membership.service.js';
import { ProjectsRepository } from './projects.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([Project, ProjectMember])],
  providers: [ProjectsRepository, ProjectMembership],
  exports: [ProjectMembership],
})
export class ProjectsModule {}

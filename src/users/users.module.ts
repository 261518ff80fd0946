import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Role } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { PasswordHasher } from './password-hasher.service.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([User, Role])],
  providers: [UsersService, UsersRepository, PasswordHasher],
  exports: [UsersService, PasswordHasher],
})
export class UsersModule {}

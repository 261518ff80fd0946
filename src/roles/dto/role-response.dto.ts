import { ApiProperty } from '@nestjs/swagger';
import { RoleResponseDto } from '../../users/dto/user-response.dto.js';

export class RoleEnvelopeDto {
  @ApiProperty({ type: RoleResponseDto })
  role: RoleResponseDto;
}

export class RoleListResponseDto {
  @ApiProperty({ type: [RoleResponseDto], maxItems: 10_000, description: 'By name (every role; a sanity bound)' })
  roles: RoleResponseDto[];
}

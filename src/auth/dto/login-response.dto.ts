import { ApiProperty } from '@nestjs/swagger';
import { UserResponseDto } from '../../users/dto/user-response.dto.js';

export class LoginResponseDto {
  @ApiProperty({
    description:
      'Signed JWT (compact form) to send as "Authorization: Bearer <token>". Carries sub (user id), ver, iss, aud, ' +
      'iat, exp.',
    maxLength: 4096,
    pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxYjlkNmJjZC1iYmZkIn0.c2lnbmF0dXJl',
  })
  token: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 2_147_483_647,
    description: 'Seconds until the token expires (JWT_EXPIRES_IN).',
    example: 3600,
  })
  expiresIn: number;

  @ApiProperty({ type: UserResponseDto })
  user: UserResponseDto;
}

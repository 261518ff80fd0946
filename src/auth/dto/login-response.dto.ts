import { ApiProperty } from '@nestjs/swagger';
import { UserResponseDto } from '../../users/dto/user-response.dto.js';

export class LoginResponseDto {
  @ApiProperty({
    description: 'HS256 JWT to send as "Authorization: Bearer <token>". Carries sub (user id), iss, aud, iat, exp.',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxYjlkNmJjZC...',
  })
  token: string;

  @ApiProperty({ description: 'Seconds until the token expires.', example: 3600 })
  expiresIn: number;

  @ApiProperty({ type: UserResponseDto })
  user: UserResponseDto;
}

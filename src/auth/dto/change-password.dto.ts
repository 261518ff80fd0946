import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString } from 'class-validator';
import { MaxBytes } from '../../common/validation/text.validators.js';

export class ChangePasswordDto {
  @ApiProperty({ example: 'ChangeMe-Dev-Only-2026!', maxLength: 1024, description: 'The password in use now.' })
  @MaxBytes(1024)
  @IsNotEmpty()
  @IsString()
  readonly currentPassword: string;

  @ApiProperty({
    example: 'plum-orbit-candle-73',
    minLength: 12,
    maxLength: 1024,
    description:
      'At least 12 characters, at most 1,024 bytes, not containing the username, rated at least 3 of 4 by ' +
      'zxcvbn; else 400 weak_password with its feedback.',
  })
  @MaxBytes(1024)
  @IsNotEmpty()
  @IsString()
  readonly newPassword: string;
}

export class TokenResponseDto {
  @ApiProperty({
    description: 'A new token: every token issued before the change has stopped working.',
    maxLength: 4096,
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxYjlkNmJjZC...',
  })
  token: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 2_592_000,
    description: 'Seconds until the token expires.',
    example: 3600,
  })
  expiresIn: number;
}

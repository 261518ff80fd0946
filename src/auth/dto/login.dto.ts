import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString } from 'class-validator';
import { MaxBytes, NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';

export class LoginDto {
  @ApiProperty({
    example: 'alice',
    minLength: 1,
    maxLength: 255,
    description: 'At most 255 characters (Unicode code points), no control characters.',
  })
  @NoControlCharacters()
  @TextLength(1, 255)
  @IsNotEmpty()
  @IsString() // decorators run bottom-up: the type check comes first
  readonly username: string;

  @ApiProperty({
    example: 'ChangeMe-Dev-Only-2026!',
    minLength: 1,
    maxLength: 1024,
    description: 'At most 1,024 bytes (UTF-8); longer passwords are rejected before any hashing.',
  })
  @MaxBytes(1024)
  @IsNotEmpty()
  @IsString()
  readonly password: string;
}

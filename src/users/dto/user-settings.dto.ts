import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { isTimeZone } from '../../common/time/time-zone.js';
import type { User } from '../entities/user.entity.js';
import { UserResponseDto } from './user-response.dto.js';

/** "HH:MM", 00:00 to 23:59. */
const CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

export class QuietHoursDto {
  @ApiProperty({ pattern: CLOCK_TIME.source, maxLength: 5, example: '22:00', description: 'Local start (HH:MM, 24 h)' })
  @IsDefined({ message: 'quietHours.start is required' })
  @IsString({ message: 'quietHours.start must be "HH:MM"' })
  @Matches(CLOCK_TIME, { message: 'quietHours.start must be "HH:MM" (00:00-23:59)' })
  readonly start: string;

  @ApiProperty({
    pattern: CLOCK_TIME.source,
    maxLength: 5,
    example: '07:00',
    description: 'Local end (HH:MM, 24 h); before start: the quiet hours cross midnight',
  })
  @IsDefined({ message: 'quietHours.end is required' })
  @IsString({ message: 'quietHours.end must be "HH:MM"' })
  @Matches(CLOCK_TIME, { message: 'quietHours.end must be "HH:MM" (00:00-23:59)' })
  readonly end: string;
}

/** The caller's attention settings: e-mails due in quiet hours or a snooze wait until they end. */
export class UserSettingsDto {
  @ApiProperty({ maxLength: 64, example: 'Europe/Berlin', description: 'IANA time zone of quiet hours and digests' })
  timezone: string;

  // Absent rather than null: OpenAPI 3.0 cannot make a $ref nullable.
  @ApiPropertyOptional({ type: QuietHoursDto, description: 'Local quiet hours; absent: none' })
  quietHours?: QuietHoursDto;

  @ApiProperty({
    example: true,
    description: 'Urgent events (a mention, a review requested of you) pass quiet hours and snooze',
  })
  urgentBypass: boolean;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'E-mails wait until then (POST /api/notifications/snooze); null: not snoozed',
  })
  snoozedUntil: string | null;

  static from(user: Pick<User, 'timezone' | 'quietHoursStart' | 'quietHoursEnd' | 'urgentBypass' | 'snoozedUntil'>) {
    return {
      timezone: user.timezone,
      ...(user.quietHoursStart && user.quietHoursEnd
        ? { quietHours: { start: user.quietHoursStart, end: user.quietHoursEnd } }
        : {}),
      urgentBypass: user.urgentBypass,
      snoozedUntil: user.snoozedUntil ? user.snoozedUntil.toISOString() : null,
    } satisfies UserSettingsDto;
  }
}

export class UpdateUserSettingsDto {
  @ApiPropertyOptional({ maxLength: 64, example: 'America/New_York', description: 'An IANA time zone name' })
  @IsOptional()
  @IsString({ message: 'timezone must be an IANA time zone name' })
  @MaxLength(64)
  @ValidateBy({
    name: 'timeZone',
    validator: {
      validate: isTimeZone,
      defaultMessage: () => 'timezone must be an IANA time zone name, e.g. Europe/Berlin',
    },
  })
  readonly timezone?: string;

  @ApiPropertyOptional({ type: QuietHoursDto, nullable: true, description: 'null removes the quiet hours' })
  @IsOptional()
  @ValidateNested()
  @Type(() => QuietHoursDto)
  readonly quietHours?: QuietHoursDto | null;

  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean({ message: 'urgentBypass must be true or false' })
  readonly urgentBypass?: boolean;
}

export class UpdateMeDto {
  @ApiProperty({ type: UpdateUserSettingsDto, description: 'Only the settings given change' })
  @IsDefined({ message: 'settings is required' })
  @ValidateNested()
  @Type(() => UpdateUserSettingsDto)
  readonly settings: UpdateUserSettingsDto;
}

export class MeResponseDto {
  @ApiProperty({ type: UserResponseDto })
  user: UserResponseDto;

  @ApiProperty({ type: UserSettingsDto })
  settings: UserSettingsDto;
}

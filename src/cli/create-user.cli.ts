// npm run user:create -- --username NAME --email ADDRESS --first-name FIRST --last-name LAST [--roles admin,user]
// The password comes from NEW_USER_PASSWORD when set, else from the first line of standard input
// (typed twice, without echo, on a terminal); the password policy applies (src/users/password-policy.ts). Pending migrations are applied first.
import { IsEmail, IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { DataSource } from 'typeorm';
import { MaxBytes, NoControlCharacters } from '../common/validation/text.validators.js';
import { Role } from '../users/entities/role.entity.js';
import { UsersService } from '../users/users.service.js';
import { CliError, parseFlags, readPassword, runCli, validateInput, withCliContext } from './cli-support.js';

const USAGE = `Usage: npm run user:create -- --username NAME --email ADDRESS --first-name FIRST --last-name LAST [--roles admin,user]
The password is read from NEW_USER_PASSWORD if set, else from the first line of standard input.`;

class NewUser {
  @NoControlCharacters()
  @Matches(/^\S(.*\S)?$/su, { message: 'username must not start or end with whitespace' })
  @MaxLength(255)
  @IsNotEmpty()
  @IsString()
  username: string;

  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an e-mail address such as jane@example.com' })
  @IsString()
  email: string;

  @NoControlCharacters()
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  firstName: string;

  @NoControlCharacters()
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  lastName: string;

  @MaxBytes(1024, { message: 'password must be at most 1024 bytes long' })
  @IsNotEmpty({ message: 'password must not be empty' })
  @IsString()
  password: string;

  @NoControlCharacters({ each: true })
  @MaxLength(64, { each: true })
  roleNames: string[];
}

async function main(): Promise<void> {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      username: { type: 'string' },
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      roles: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
  );
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  const missing = (['username', 'email', 'first-name', 'last-name'] as const).filter(
    (flag) => flags[flag] === undefined,
  );
  if (missing.length) throw new CliError(`Missing ${missing.map((flag) => `--${flag}`).join(', ')}\n\n${USAGE}`, 2);

  const input = Object.assign(new NewUser(), {
    username: flags.username,
    email: flags.email,
    firstName: flags['first-name'],
    lastName: flags['last-name'],
    roleNames: [...new Set((flags.roles ?? '').split(',').map((name) => name.trim()))].filter(Boolean),
  });
  await validateInput(Object.assign(input, { password: 'x' })); // everything but the password, before asking for it
  input.password = await readPassword('NEW_USER_PASSWORD');
  await validateInput(input);

  await withCliContext(async (context) => {
    const dataSource = context.get(DataSource);
    const existingRoles = (await dataSource.getRepository(Role).find({ order: { name: 'ASC' } })).map(
      (role) => role.name,
    );
    const unknown = input.roleNames.filter((name) => !existingRoles.includes(name));
    if (unknown.length) {
      throw new CliError(
        `Unknown role(s): ${unknown.join(', ')}. Existing roles: ${existingRoles.join(', ') || '(none)'}.`,
      );
    }

    // The service refuses a username or e-mail equal to an existing one ignoring case and Unicode
    // form (409 conflict, printed as its details), so no look-alike "Alice" sits next to "alice".
    const user = await context.get(UsersService).create(input);
    console.log(`Created user ${user.username} (id ${user.id}) with roles: ${input.roleNames.join(', ') || '(none)'}.`);
  });
}

runCli('user:create', main);

// npm run user:create -- --username NAME --email ADDRESS --first-name FIRST --last-name LAST [--roles admin,user]
// The password comes from NEW_USER_PASSWORD when set, else from the first line of standard input
// (typed twice, without echo, on a terminal); the password policy applies (src/users/password-policy.ts). Pending migrations are applied first.
import { DataSource } from 'typeorm';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { Role } from '../users/entities/role.entity.js';
import { CreateUserByRoleNamesDto } from '../users/dto/user-input.dto.js';
import { UsersService } from '../users/users.service.js';
import { CliError, parseFlags, readPassword, runCli, withCliContext } from './cli-support.js';

const USAGE = `Usage: npm run user:create -- --username NAME --email ADDRESS --first-name FIRST --last-name LAST [--roles admin,user]
The password is read from NEW_USER_PASSWORD if set, else from the first line of standard input.`;

// The API's own pipe and DTO rules, so a refusal prints the details POST /api/users would answer.
const validation = createValidationPipe();
const validated = async (input: object): Promise<CreateUserByRoleNamesDto> =>
  (await validation.transform(input, { type: 'body', metatype: CreateUserByRoleNamesDto })) as CreateUserByRoleNamesDto;

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

  const fields = {
    username: flags.username,
    email: flags.email,
    firstName: flags['first-name'],
    lastName: flags['last-name'],
    roleNames: [...new Set((flags.roles ?? '').split(',').map((name) => name.trim()))].filter(Boolean),
  };
  await validated({ ...fields, password: 'x' }); // everything but the password, before asking for it
  const input = await validated({ ...fields, password: await readPassword('NEW_USER_PASSWORD') });

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

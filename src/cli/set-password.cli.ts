// npm run user:set-password -- --username NAME
// The new password comes from NEW_USER_PASSWORD when set, else from the first line of standard input
// (typed twice, without echo, on a terminal). The password policy applies; every token the user
// holds stops working. Pending migrations are applied first.
import { UsersService } from '../users/users.service.js';
import { CliError, parseFlags, readPassword, runCli, withCliContext } from './cli-support.js';

const USAGE = `Usage: npm run user:set-password -- --username NAME
The password is read from NEW_USER_PASSWORD if set, else from the first line of standard input.`;

async function main(): Promise<void> {
  const flags = parseFlags(
    process.argv.slice(2),
    { username: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    USAGE,
  );
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  const username = flags.username;
  if (!username) throw new CliError(`Missing --username\n\n${USAGE}`, 2);
  const password = await readPassword('NEW_USER_PASSWORD');

  await withCliContext(async (context) => {
    const users = context.get(UsersService);
    const user = await users.findByUsername(username);
    if (!user) throw new CliError(`No user named ${JSON.stringify(username)}.`);
    // The service applies the password policy (its weak_password details are printed) and revokes the tokens.
    await users.setPassword(user.id, password);
    console.log(`Set a new password for ${user.username} (id ${user.id}); its existing tokens no longer work.`);
  });
}

runCli('user:set-password', main);

// npm run user:deactivate -- --username NAME
// Marks the user inactive (login refused) and bumps tokenVersion, so every token issued so far stops working.
import { UsersService } from '../users/users.service.js';
import { CliError, parseFlags, runCli, withCliContext } from './cli-support.js';

const USAGE = 'Usage: npm run user:deactivate -- --username NAME';

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

  await withCliContext(async (context) => {
    const users = context.get(UsersService);
    const user = await users.findByUsername(username);
    if (!user || !(await users.deactivate(user.username)))
      throw new CliError(`No user named ${JSON.stringify(username)}.`);
    const note = user.isActive ? '' : ' (it was already inactive)';
    console.log(`Deactivated user ${user.username} (id ${user.id})${note}; its existing tokens no longer work.`);
  });
}

runCli('user:deactivate', main);

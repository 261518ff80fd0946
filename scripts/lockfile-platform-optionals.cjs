// Adds entries for other platforms' optional native packages (@swc/core-*, oxlint bindings...) that the
// registry mirror on our build machines does not serve, so npm could not record them and `npm ci`
// refuses the lock. Run after `npm install` here: node scripts/lockfile-platform-optionals.cjs
const fs = require('node:fs');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const pk = lock.packages;
let added = 0;
for (const [path, entry] of Object.entries(pk)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies || {})) {
    const key = `node_modules/${name}`;
    if (pk[key]) continue;
    const tail = name.split('/').pop();
    const os = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony'].find((o) => tail.includes(o));
    const cpu = ['arm64', 'x64', 'ia32', 'ppc64', 's390x', 'riscv64', 'arm'].find((c) => tail.split('-').includes(c));
    const stub = { version, optional: true };
    if (entry.dev) stub.dev = true;
    if (os) stub.os = [os];
    if (cpu) stub.cpu = [cpu];
    if (/musl/.test(tail)) stub.libc = ['musl'];
    else if (/gnu/.test(tail)) stub.libc = ['glibc'];
    pk[key] = stub;
    added++;
  }
}
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} placeholder entries`);

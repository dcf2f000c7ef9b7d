// Builds the server and the web pages when they are missing or older than their sources, so that
// `npm start` and `npm test` work straight after `npm ci` on a fresh clone.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some(
    (source) => newest(source) > built || (existsSync(source) && statSync(source).mtimeMs > built),
  );
}

if (stale('dist/src/cli.js', ['src', 'package.json', 'tsconfig.json'])) {
  console.error('campus-sso: building the server…');
  execSync('npm run build:server', { stdio: 'inherit' });
}
if (existsSync('web/index.html') && stale('dist/web/index.html', ['web'])) {
  console.error('campus-sso: building the web pages…');
  execSync('npm run build:web', { stdio: 'inherit' });
}

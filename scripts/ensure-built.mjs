// Builds the server and the web pages when they are missing or older than their sources, so that
// `npm start` and `npm test` work straight after `npm ci` on a fresh clone.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of a file, or of any file below a folder (0 when it does not exist). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name !== 'node_modules') latest = Math.max(latest, newest(join(path, entry.name)));
  }
  return latest;
}

function stale(output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((source) => newest(source) > built);
}

if (stale('dist/src/cli.js', ['src', 'package.json', 'tsconfig.json'])) {
  console.error('campus-sso: building the server…');
  execSync('npm run build:server', { stdio: 'inherit' });
}
if (existsSync('web/index.html') && stale('dist/web/index.html', ['web'])) {
  console.error('campus-sso: building the web pages…');
  execSync('npm run build:web', { stdio: 'inherit' });
}

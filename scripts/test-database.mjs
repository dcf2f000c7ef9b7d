// The PostgreSQL side of scripts/prepare-test-machine.sh, through the project's own `pg` driver (so it needs no
// psql). TEST_DATABASE_URL defaults to the one the tests use.
//   node scripts/test-database.mjs where       prints "<host> <port>" of TEST_DATABASE_URL
//   node scripts/test-database.mjs reachable   exits 0 when its server answers, else prints why and exits 1
//   node scripts/test-database.mjs create      creates its database when missing
import { URL } from 'node:url';
import pg from 'pg';

const url = new URL(process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test');
const database = decodeURIComponent(url.pathname.slice(1)) || 'postgres';
// The maintenance database exists on every server; the test database may not yet.
const maintenance = new URL(url.href);
maintenance.pathname = '/postgres';
maintenance.searchParams.delete('options');

async function withClient(run) {
  const client = new pg.Client({ connectionString: maintenance.href, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return await run(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const command = process.argv[2];
try {
  if (command === 'where') {
    console.log(`${url.hostname || '127.0.0.1'} ${url.port || '5432'}`);
  } else if (command === 'reachable') {
    await withClient((client) => client.query('select 1'));
  } else if (command === 'create') {
    await withClient(async (client) => {
      const found = await client.query('select 1 from pg_database where datname = $1', [database]);
      if (found.rowCount === 0) {
        await client.query(`create database ${client.escapeIdentifier(database)}`);
        console.error(`prepare-test-machine: created database ${database}`);
      }
    });
  } else {
    console.error('usage: node scripts/test-database.mjs where|reachable|create');
    process.exit(2);
  }
} catch (error) {
  if (command === 'reachable') console.log(error.message || String(error));
  else console.error(`prepare-test-machine: ${error.message}`);
  process.exit(1);
}

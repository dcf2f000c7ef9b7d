/**
 * A real OpenLDAP directory for the directory tests (docs/interface.md#the-schools-directory): Debian's `slapd`
 * (installed by scripts/prepare-test-machine.sh), started on a free port with its own configuration, database
 * and certificates in a temporary folder, never the system's service. StartTLS is required for everything
 * (`security tls=1`), with a CA generated here by openssl; anonymous users can read nothing; the memberof overlay
 * keeps `memberOf` on people as groups change; a DN with an empty password binds (unauthenticated), as on many
 * real directories, so that a client sending one would be caught.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attribute, Change, Client, Control } from 'ldapts';
import { PortTaken, probedPort, startOnProbedPort } from './probed-port.js';
import { waitFor as waitForCondition } from './wait.js';

export const SUFFIX = 'dc=school,dc=test';
export const PEOPLE = `ou=people,${SUFFIX}`;
export const GROUPS = `ou=groups,${SUFFIX}`;
export const SERVICE_DN = `cn=campus-sso,ou=services,${SUFFIX}`;
const ROOT_DN = `cn=admin,${SUFFIX}`;
const ROOT_PASSWORD = 'root-secret-for-tests';
const SERVICE_PASSWORD = 'service password with spaces';

const SLAPD = process.env.SLAPD_PATH ?? '/usr/sbin/slapd';

export interface TestPerson {
  readonly uin: number;
  readonly cn: string;
  readonly password: string;
  readonly mail?: string;
}

export interface TestDirectory {
  readonly dir: string;
  /** `ldap://127.0.0.1:<port>` (StartTLS required). */
  readonly url: string;
  /** `ldaps://127.0.0.1:<port>`. */
  readonly ldapsUrl: string;
  readonly caFile: string;
  readonly bindPasswordFile: string;
  /** The LDAP_ settings for campus-sso to use this directory. */
  env(extra?: Readonly<Record<string, string>>): Record<string, string>;
  addPerson(person: TestPerson): Promise<void>;
  /** Any entry, as the root DN adds it. */
  addEntry(dn: string, attributes: Record<string, string | string[]>): Promise<void>;
  /** A groupOfNames with these members (uins); memberOf follows through the overlay. */
  addGroup(cn: string, memberUins: readonly number[]): Promise<void>;
  addMember(cn: string, uin: number): Promise<void>;
  modifyPerson(uin: number, attribute: string, value: string): Promise<void>;
  removePerson(uin: number): Promise<void>;
  /** Any entry, a referral too (deleted with ManageDsaIT, RFC 3296 §3, so the server does not refer instead). */
  removeEntry(dn: string): Promise<void>;
  /** Stops slapd (an outage); `start` brings the same directory back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export const personDn = (uin: number): string => `uid=${uin},${PEOPLE}`;

/** RFC 3296 §3: the ManageDsaIT control, to act on a referral entry itself. */
const MANAGE_DSA_IT = '2.16.840.1.113730.3.4.2';

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until `condition` holds, checking every 50 ms, for at most `ms` (./wait.ts, with this file's arguments). */
export async function waitFor(
  condition: () => Promise<boolean>,
  ms = 10_000,
  what = 'condition',
): Promise<void> {
  await waitForCondition(condition, { timeout: ms, interval: 50, what });
}

/** slapd's message when a port it was told is taken. */
const ADDRESS_IN_USE = /Address already in use/;

function makeCertificates(dir: string): void {
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=campus-sso test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
}

function slapdConf(dir: string): string {
  return `include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile ${dir}/slapd.pid
argsfile ${dir}/slapd.args
TLSCACertificateFile ${dir}/ca.pem
TLSCertificateFile ${dir}/server.pem
TLSCertificateKeyFile ${dir}/server.key
# At most 3 entries per answer, as a directory's administrative limit would (Active Directory's MaxPageSize is
# 1000): a search for everyone fails unless it asks for pages (RFC 2696), which the sync must.
sizelimit size.soft=3 size.hard=3 size.prtotal=unlimited
# Like many directories (Active Directory among them), accept a DN with an empty password as an
# unauthenticated bind (RFC 4513 §5.1.2): campus-sso must never send one.
allow bind_anon_dn

database mdb
maxsize 33554432
suffix "${SUFFIX}"
rootdn "${ROOT_DN}"
rootpw ${ROOT_PASSWORD}
directory ${dir}/db
security tls=1
overlay memberof
memberof-refint TRUE
access to attrs=userPassword
  by self write
  by anonymous auth
  by * none
access to *
  by dn.exact="${SERVICE_DN}" read
  by self read
  by * none
`;
}

export async function startTestDirectory(): Promise<TestDirectory> {
  const dir = mkdtempSync(join(tmpdir(), 'campus-sso-slapd-'));
  mkdirSync(join(dir, 'db'));
  makeCertificates(dir);
  const confFile = join(dir, 'slapd.conf');
  writeFileSync(confFile, slapdConf(dir));
  const bindPasswordFile = join(dir, 'bind-password');
  // One trailing newline, as `echo` leaves it: campus-sso strips it.
  writeFileSync(bindPasswordFile, `${SERVICE_PASSWORD}\n`, { mode: 0o600 });
  let port = 0;
  let ldapsPort = 0;
  let url = '';
  let ldapsUrl = '';
  const caFile = join(dir, 'ca.pem');
  const pidFile = join(dir, 'slapd.pid');
  let child: ChildProcess | undefined;
  let log = '';

  /** Starts slapd on `url` and `ldapsUrl`; answers once it serves both, or why it could not. */
  const launch = async (): Promise<{ exited: false } | { exited: true; log: string }> => {
    rmSync(pidFile, { force: true });
    log = '';
    // -d none: stay in the foreground (this process owns it and stops it), logging only its errors.
    child = spawn(SLAPD, ['-f', confFile, '-h', `${url}/ ${ldapsUrl}/`, '-d', 'none'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const started = child;
    // slapd writes its pid file once its listeners are bound: only then is an answer on the ports its own.
    const outcome = await waitForCondition(
      async () => {
        if (started.exitCode !== null) return { exited: true as const, log };
        const serving = existsSync(pidFile) && (await accepts(port)) && (await accepts(ldapsPort));
        return serving ? { exited: false as const } : undefined;
      },
      { timeout: 15_000, interval: 50, what: 'slapd to listen' },
    ).catch((error: unknown) => {
      throw new Error(`slapd did not start: ${log}`, { cause: error });
    });
    if (outcome.exited) await new Promise((resolve) => started.once('close', resolve));
    return outcome.exited ? { exited: true, log } : outcome;
  };

  /** Brings slapd back on the ports it had (the directory's URLs are in the configuration under test). */
  const start = async (): Promise<void> => {
    const outcome = await launch();
    if (outcome.exited) throw new Error(`slapd exited (${child?.exitCode}): ${outcome.log}`);
  };

  /** The first start: on new probed ports each time slapd finds one taken (./probed-port.ts). */
  const firstStart = (): Promise<void> =>
    startOnProbedPort('slapd', async (probed) => {
      port = probed;
      ldapsPort = await probedPort();
      url = `ldap://127.0.0.1:${port}`;
      ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
      const outcome = await launch();
      if (!outcome.exited) return;
      if (ADDRESS_IN_USE.test(outcome.log)) return new PortTaken(outcome.log);
      throw new Error(`slapd exited (${child?.exitCode}): ${outcome.log}`);
    });

  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };

  const asRoot = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ url, timeout: 5000, connectTimeout: 5000 });
    try {
      await client.startTLS({ ca: [readFileSync(caFile, 'utf8')], host: '127.0.0.1' });
      await client.bind(ROOT_DN, ROOT_PASSWORD);
      return await work(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };

  await firstStart();
  await asRoot(async (client) => {
    await client.add(SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'school', o: 'Test School' });
    for (const ou of ['people', 'groups', 'services']) {
      await client.add(`ou=${ou},${SUFFIX}`, { objectClass: 'organizationalUnit', ou });
    }
    await client.add(SERVICE_DN, {
      objectClass: ['applicationProcess', 'simpleSecurityObject'],
      cn: 'campus-sso',
      userPassword: SERVICE_PASSWORD,
    });
  });

  return {
    dir,
    url,
    ldapsUrl,
    caFile,
    bindPasswordFile,
    env: (extra = {}) => ({
      LDAP_URL: url,
      LDAP_CA_FILE: caFile,
      LDAP_BIND_DN: SERVICE_DN,
      LDAP_BIND_PASSWORD_FILE: bindPasswordFile,
      LDAP_USER_BASE: PEOPLE,
      LDAP_TIMEOUT_MS: '3000',
      ...extra,
    }),
    addPerson: (person) =>
      asRoot((client) =>
        client.add(personDn(person.uin), {
          objectClass: ['inetOrgPerson'],
          uid: String(person.uin),
          cn: person.cn,
          sn: person.cn.split(' ').at(-1) ?? person.cn,
          userPassword: person.password,
          ...(person.mail !== undefined && { mail: person.mail }),
        }),
      ),
    addEntry: (dn, attributes) => asRoot((client) => client.add(dn, attributes)),
    addGroup: (cn, members) =>
      asRoot((client) =>
        client.add(`cn=${cn},${GROUPS}`, {
          objectClass: 'groupOfNames',
          cn,
          // groupOfNames needs a member: an empty group names its own container.
          member: members.length > 0 ? members.map(personDn) : [GROUPS],
        }),
      ),
    addMember: (cn, uin) =>
      asRoot((client) =>
        client.modify(
          `cn=${cn},${GROUPS}`,
          new Change({
            operation: 'add',
            modification: new Attribute({ type: 'member', values: [personDn(uin)] }),
          }),
        ),
      ),
    modifyPerson: (uin, attribute, value) =>
      asRoot((client) =>
        client.modify(
          personDn(uin),
          new Change({
            operation: 'replace',
            modification: new Attribute({ type: attribute, values: [value] }),
          }),
        ),
      ),
    removePerson: (uin) => asRoot((client) => client.del(personDn(uin))),
    removeEntry: (dn) => asRoot((client) => client.del(dn, new Control(MANAGE_DSA_IT, { critical: true }))),
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

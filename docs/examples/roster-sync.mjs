#!/usr/bin/env node
/**
 * Roster sync: brings campus-sso's users in line with a class list exported from the student information
 * system, as a service account (docs/interface.md#service-accounts-client-credentials). No person's cookie:
 * the job gets a token with the OAuth 2.0 client credentials grant (RFC 6749 §4.4) and calls the admin API
 * with `Authorization: Bearer`.
 *
 * Set up once (an admin):
 *   campus-sso app add --name "Roster sync" --emoji 🔄 --client-credentials --scope admin:users:write
 *   (or, on #/admin, an app with "client_credentials" on and allowed scope admin:users:write)
 *
 * Run (Node 20 or later, no dependencies):
 *   CAMPUS_SSO_URL=https://sso.school.edu CLIENT_ID=… CLIENT_SECRET=… \
 *     node roster-sync.mjs roster.csv [--dry-run]
 *
 * roster.csv, one student a line, header optional:
 *   uin,name,email,groups
 *   20260301,Li Hua,lihua@school.edu,class-2026-3 grade-2026
 * `groups` are group tags separated by spaces or semicolons; an empty email or name clears it.
 *
 * Each student missing from campus-sso is created (`POST /v1/admin/users`, group ROSTER_USER_GROUP, default
 * `user`) with a random password they must change at their first sign-in: the class teacher or the helpdesk
 * then hands out a sign-in card. Set INITIAL_PASSWORDS_FILE to keep those passwords in a file only the job's
 * account can read. Each student who exists has name, email and groups updated (`PATCH /v1/admin/users/:uin`).
 * Prints one JSON line per student (`created`, `updated`, `failed`) and a summary; exits 1 if any failed.
 */
/* global Buffer, console, fetch, process, URLSearchParams -- Node's own globals (this file is plain JavaScript) */
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';

const base = (process.env.CAMPUS_SSO_URL ?? '').replace(/\/+$/, '');
const clientId = process.env.CLIENT_ID ?? '';
const clientSecret = process.env.CLIENT_SECRET ?? '';
const userGroup = process.env.ROSTER_USER_GROUP ?? 'user';
const passwordsFile = process.env.INITIAL_PASSWORDS_FILE;
const [file, ...flags] = process.argv.slice(2);
const dryRun = flags.includes('--dry-run');

if (!base || !clientId || !clientSecret || !file) {
  console.error(
    'usage: CAMPUS_SSO_URL=… CLIENT_ID=… CLIENT_SECRET=… node roster-sync.mjs roster.csv [--dry-run]',
  );
  process.exit(2);
}

/** One CSV line into cells (double-quoted cells may hold commas and "" for a quote). */
function cells(line) {
  const out = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === ',' && !quoted) {
      out.push(cell.trim());
      cell = '';
    } else {
      cell += c;
    }
  }
  out.push(cell.trim());
  return out;
}

/** The roster's students: { line, uin, name, email, groups }. */
function readRoster(path) {
  const students = [];
  readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .forEach((text, index) => {
      if (text.trim() === '') return;
      const [uin, name = '', email = '', groups = ''] = cells(text);
      if (index === 0 && !/^\d+$/.test(uin)) return; // the header
      students.push({
        line: index + 1,
        uin: Number(uin),
        name: name || null,
        email: email || null,
        groups: groups.split(/[\s;]+/).filter(Boolean),
      });
    });
  return students;
}

let token;

/** RFC 6749 §4.4.2: client_secret_basic (RFC 6749 §2.3.1 form-encodes the id and secret first). */
async function newToken() {
  const encode = (value) => encodeURIComponent(value).replace(/%20/g, '+');
  const response = await fetch(`${base}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'admin:users:write' }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`token endpoint: ${body.error}: ${body.error_description}`);
  return body.access_token;
}

/** An admin API call in the envelope ({code, msg, data}); a token that expired meanwhile is renewed once. */
async function admin(method, path, body, retried = false) {
  token ??= await newToken();
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status === 401 && !retried) {
    token = await newToken();
    return admin(method, path, body, true);
  }
  return { status: response.status, ...(await response.json()) };
}

/** 24 random bytes: nobody knows it, and the student must change it at the first sign-in anyway. */
const randomPassword = () => randomBytes(24).toString('base64url');

async function sync(student) {
  const profile = { name: student.name, email: student.email, groups: student.groups };
  if (dryRun) return { action: 'would sync' };
  const password = randomPassword();
  const created = await admin('POST', '/v1/admin/users', {
    uin: student.uin,
    password,
    user_group: userGroup,
    ...profile,
  });
  if (created.code === 0) {
    if (passwordsFile) appendFileSync(passwordsFile, `${student.uin},${password}\n`, { mode: 0o600 });
    return { action: 'created' };
  }
  // 409 code 6: the uin exists already; update what the roster says about the student.
  if (created.status !== 409) return { action: 'failed', error: created.msg };
  const updated = await admin('PATCH', `/v1/admin/users/${student.uin}`, profile);
  return updated.code === 0 ? { action: 'updated' } : { action: 'failed', error: updated.msg };
}

const counts = { created: 0, updated: 0, failed: 0 };
for (const student of readRoster(file)) {
  if (!Number.isSafeInteger(student.uin) || student.uin < 1) {
    counts.failed += 1;
    console.log(
      JSON.stringify({ line: student.line, action: 'failed', error: 'uin is not a positive integer' }),
    );
    continue;
  }
  const result = await sync(student);
  if (result.action in counts) counts[result.action] += 1;
  console.log(JSON.stringify({ line: student.line, uin: student.uin, ...result }));
}
console.log(JSON.stringify({ summary: counts, dry_run: dryRun }));
process.exitCode = counts.failed > 0 ? 1 : 0;

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/storage/open-store.js';
import { credentialKey } from '../src/oauth/credentials.js';

const kind = process.argv[2] ?? 'sqlite';
const store =
  kind === 'sqlite'
    ? openStore({ kind: 'sqlite', file: join(mkdtempSync(join(tmpdir(), 'b-')), 'x.sqlite'), url: 'sqlite:x' })
    : openStore({ kind: 'postgres', url: process.env.PGURL! });
await store.migrate();
const now = Date.now();
await store.users.insert({ uin: 5, passwordHash: 'x', userGroup: 'user', createdAt: now, disabled: false, mustChangePassword: false, groups: ['a','b'] });
await store.apps.insert({ clientId: 'C'.repeat(16), name: 'n', emoji: '📚', secretHash: 'a'.repeat(64), redirectUris: [], createdAt: now, disabled: false, allowRefreshTokens: true, allowedGroups: [], postLogoutRedirectUris: [], backchannelLogoutUri: null, backchannelLogoutLast: null });
const hash = credentialKey('tok-' + now);
await store.codes.insert({ codeHash: 'c', clientId: 'C'.repeat(16), uin: 5, redirectUri: 'r', scope: null, nonce: null, codeChallenge: null, codeChallengeMethod: null, authTime: now, createdAt: now, expiresAt: now + 60000, usedAt: null, amr: null, sid: null });
await store.tokens.redeemCode('c', now, { tokenHash: hash, clientId: 'C'.repeat(16), uin: 5, scope: null, createdAt: now, expiresAt: now + 3600_000, revoked: false, codeHash: 'c', familyId: null, amr: null, sid: null } as never, undefined);
for (let round = 0; round < 5; round++) {
  const n = kind === 'sqlite' ? 200_000 : 20_000;
  const t = process.hrtime.bigint();
  if (kind === 'sqlite') for (let i = 0; i < n; i++) await store.tokens.findActiveOwner(hash, now);
  else { for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: 100 }, () => store.tokens.findActiveOwner(hash, now))); }
  const us = Number(process.hrtime.bigint() - t) / 1000 / n;
  if (!(await store.tokens.findActiveOwner(hash, now))) throw new Error('not found');
  console.log(kind, 'findActiveOwner µs/call', us.toFixed(3));
}
await store.close();

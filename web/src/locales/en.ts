/**
 * English strings. Every visible string of the pages lives here and in zh-CN.ts (same keys).
 * vue-i18n message syntax: `{name}` is a parameter; `|`, `@`, `{` and `}` are special and must not appear
 * as plain text.
 */
import common from './en/common.js';
import signIn from './en/sign-in.js';
import flows from './en/flows.js';
import account from './en/account.js';
import admin from './en/admin.js';
import people from './en/people.js';
import { mergeSections } from './sections.js';

const en = mergeSections({ common, signIn, flows, account, admin, people });

type Widen<T> = { -readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type MessageSchema = Widen<typeof en>;

export default en as MessageSchema;

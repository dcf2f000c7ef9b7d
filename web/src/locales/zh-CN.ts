/** Simplified Chinese strings; same keys as en.ts (the type makes a missing key a compile error). */
import type { MessageSchema } from './en.js';

import common from './zh-CN/common.js';
import signIn from './zh-CN/sign-in.js';
import flows from './zh-CN/flows.js';
import account from './zh-CN/account.js';
import admin from './zh-CN/admin.js';
import people from './zh-CN/people.js';
import { mergeSections } from './sections.js';

const zhCN: MessageSchema = mergeSections({ common, signIn, flows, account, admin, people });

export default zhCN;

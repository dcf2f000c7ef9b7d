/** Simplified Chinese strings; same keys as en.ts (the type makes a missing key a compile error). */
import type { MessageSchema } from './en';

import common from './zh-CN/common';
import signIn from './zh-CN/sign-in';
import flows from './zh-CN/flows';
import account from './zh-CN/account';
import admin from './zh-CN/admin';
import people from './zh-CN/people';

const zhCN: MessageSchema = {
  ...common,
  ...signIn,
  ...flows,
  ...account,
  ...admin,
  ...people,
};

export default zhCN;

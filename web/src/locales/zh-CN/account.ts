/** Simplified Chinese strings: account. Part of zh-CN.ts; same keys as en/account.ts. */
import type { MessageSchema } from '../en.js';
import type en from '../en/account';

const account: Pick<MessageSchema, keyof typeof en> = {
  account: {
    title: '我的账号',
    details: '账号信息',
    uin: '账号',
    group: '用户组',
    registered: '注册时间',
    changePassword: '修改密码',
    currentPassword: '当前密码',
    newPassword: '新密码',
    repeatPassword: '再次输入新密码',
    passwordLength: '长度为 8 到 256 个字符。',
    passwordsDiffer: '两次输入的新密码不一致。',
    currentWrong: '当前密码错误。',
    passwordChanged: '密码已修改。',
    directoryPassword: '请在学校目录中修改密码',
    directoryPasswordHint: '你的账号来自学校目录，密码由学校目录校验，本登录服务不保存你的密码。',
    submitPassword: '修改密码',
    apps: '已授权的应用',
    appsIntro: '这些应用可以读取你的账号、用户组和注册时间。',
    noApps: '你还没有授权任何应用。',
    grantedAt: '授权于 {date}',
    revoke: '撤销',
    revokeTitle: '撤销 {app} 的授权？',
    revokeBody: '{app} 将被退出登录，下次使用时需要重新征得你的同意。',
    revoked: '{app} 已无法再使用你的账号。',
    signOut: '退出登录',
  },
  sessions: {
    title: '我在哪里登录了',
    intro: '退出不再使用的电脑上的登录。支持的应用也会一并退出。',
    thisBrowser: '当前浏览器',
    shared: '公用电脑',
    signedInAt: '登录于 {date}',
    lastSeen: '最近活动 {date}',
    from: '来自 {ip}',
    unknownBrowser: '未知浏览器',
    signOut: '退出登录',
    signOutEverywhere: '退出所有设备',
    everywhereTitle: '退出所有设备？',
    everywhereBody: '你登录过的所有浏览器（包括当前这个）都会退出登录。',
    signedOut: '该浏览器已退出登录。',
    sharedComputer: '这是公用电脑',
    sharedComputerHint: '关闭浏览器或 15 分钟无操作后自动退出；每个应用使用你的账号前都会先询问你。',
  },
  userFactors: {
    column: '两步验证',
    none: '无',
    totp: '身份验证器应用',
    passkey: '通行密钥',
    remove: '移除两步验证',
    removeTitle: '移除 {uin} 的两步验证？',
    removeBody:
      '用于丢失手机或通行密钥的人：他的身份验证器应用、通行密钥和恢复码都将失效，在重新设置之前只需密码即可登录。此操作会记入审计日志。',
    removed: '{uin} 现在只需密码即可登录。',
    alsoRemove: '此人也丢失了手机或通行密钥：同时移除他的两步验证',
    alsoRemoveHint:
      '他的身份验证器应用、通行密钥和恢复码都将失效；他用重置码设置密码后只需密码即可登录，然后重新设置两步验证。',
    createCode: '生成重置码',
    removedWithCode: '已移除 {uin} 的两步验证。',
  },
};

export default account;

/**
 * OpenID Connect Back-Channel Logout 1.0 §2.5: the worker that posts logout tokens to the apps. Every
 * instance runs one. Deliveries are rows (src/storage/logouts.ts) queued by the transaction that ended the
 * session; a worker claims due rows for a lease (one instance per row; a crashed instance's lease runs out),
 * posts `logout_token=…`, and marks the row delivered on 2xx, or tries again with exponential backoff for
 * 24 hours. It runs on an unref'd timer and is woken when a sign-out queues rows, never inside the sign-out's
 * request: a slow or dead app never delays anybody's sign-out page.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type BlockList, isIP } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import type { LogoutDelivery, LogoutDeliveryOutcome, Store } from '../storage/store.js';
import {
  ForbiddenDestinationError,
  guardedLookup,
  allowedNetworks,
  isAllowedDestination,
  isLoopbackUrl,
} from './delivery-address.js';
import { type CasLogoutContext, casLogoutPost } from '../cas/single-logout.js';
import { type LogoutTokenContext, signLogoutToken } from './logout-token.js';

/**
 * What the worker uses: the delivery queue and the apps' addresses, the signing keys (logout tokens), the
 * secret box (CAS tickets) and the base URL (loopback allowed in development). The application context is
 * one; the runtime (src/runtime.ts) builds, starts and stops the worker.
 */
export interface LogoutDeliveryContext extends LogoutTokenContext, CasLogoutContext {
  readonly store: LogoutTokenContext['store'] & Pick<Store, 'logouts' | 'apps'>;
  readonly config: LogoutTokenContext['config'] & Pick<Config, 'baseUrl' | 'logoutAllowedNetworks'>;
}

export interface DeliverySchedule {
  /** How often the worker looks for due rows when nothing woke it. */
  readonly pollIntervalMs: number;
  /** How long a claim holds a row against other instances. */
  readonly leaseMs: number;
  /** How long one POST may take. */
  readonly timeoutMs: number;
  /** The wait before the second attempt; it doubles after every failure … */
  readonly firstRetryMs: number;
  /** … up to this. */
  readonly maxRetryMs: number;
  /** After this long since the first attempt, a delivery is given up. */
  readonly giveUpAfterMs: number;
  /** Rows claimed (and posted in parallel) at a time. */
  readonly batchSize: number;
}

export const DEFAULT_SCHEDULE: DeliverySchedule = {
  pollIntervalMs: 5_000,
  leaseMs: 30_000,
  timeoutMs: 5_000,
  firstRetryMs: 2_000,
  maxRetryMs: 3_600_000,
  giveUpAfterMs: 24 * 3_600_000,
  batchSize: 20,
};

/** Why a POST failed, in a few words for the admin page. */
function failureReason(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return 'timeout';
  if (error instanceof ForbiddenDestinationError) return error.code;
  const code = (error as { cause?: { code?: unknown } }).cause?.code ?? (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (typeof code === 'string') return code;
  return 'network error';
}

export class LogoutDeliveryWorker {
  schedule: DeliverySchedule = DEFAULT_SCHEDULE;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  private unsubscribe: (() => void) | undefined;
  private log: FastifyBaseLogger | undefined;

  constructor(private readonly ctx: LogoutDeliveryContext) {}

  /** Starts working (idempotent): at once, then on the timer and whenever a sign-out queues rows. */
  start(log?: FastifyBaseLogger): void {
    if (this.started) return;
    this.started = true;
    this.log = log;
    this.unsubscribe = this.ctx.store.logouts.onQueued(() => this.kick());
    this.kick();
  }

  /** Stops the timer and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Looks for due rows now (after the current pass, if one is running). */
  kick(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.wakeIn(0);
  }

  private wakeIn(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), ms);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    if (this.running || !this.started) return;
    const work = (async () => {
      let full: boolean;
      do {
        this.again = false;
        try {
          full = (await this.runOnce()) >= this.schedule.batchSize;
        } catch (error) {
          this.log?.warn({ err: error }, 'back-channel logout: delivery pass failed');
          full = false;
        }
      } while ((full || this.again) && this.started);
    })();
    this.running = work;
    try {
      await work;
    } finally {
      this.running = undefined;
    }
    if (this.started) this.wakeIn(this.schedule.pollIntervalMs);
  }

  /** One pass: claims the due rows and attempts each; answers how many were attempted. */
  async runOnce(): Promise<number> {
    const ctx = this.ctx;
    const now = ctx.clock.now();
    const claimed = await ctx.store.logouts.claimDue(
      now,
      now + this.schedule.leaseMs,
      this.schedule.batchSize,
    );
    await Promise.all(claimed.map((delivery) => this.attempt(ctx, delivery)));
    return claimed.length;
  }

  private async attempt(ctx: LogoutDeliveryContext, delivery: LogoutDelivery): Promise<void> {
    const outcome = await this.send(ctx, delivery);
    await ctx.store.logouts.finish(delivery, ctx.clock.now(), outcome);
    const fields = { client_id: delivery.clientId, attempts: delivery.attempts, result: outcome.result };
    if (outcome.status === 'delivered') this.log?.info(fields, 'back-channel logout delivered');
    else this.log?.warn({ ...fields, status: outcome.status }, 'back-channel logout not delivered');
  }

  /** The POST of this delivery's kind: a back-channel logout_token, or a CAS logoutRequest. */
  private async request(
    ctx: LogoutDeliveryContext,
    delivery: LogoutDelivery,
  ): Promise<{ url: string; body: string } | { unsendable: string }> {
    // docs/interface.md#cas-protocol: CAS single logouts share this queue.
    if (delivery.kind === 'cas') return casLogoutPost(ctx, delivery);
    const app = await ctx.store.apps.find(delivery.clientId);
    if (!app?.backchannelLogoutUri) return { unsendable: 'no back-channel logout URI' };
    const logoutToken = await signLogoutToken(ctx, {
      clientId: delivery.clientId,
      uin: delivery.uin,
      sid: delivery.sid,
      issuedAt: ctx.clock.now(),
    });
    return {
      url: app.backchannelLogoutUri,
      body: new URLSearchParams({ logout_token: logoutToken }).toString(),
    };
  }

  private async send(ctx: LogoutDeliveryContext, delivery: LogoutDelivery): Promise<LogoutDeliveryOutcome> {
    let result: string;
    try {
      const post = await this.request(ctx, delivery);
      if ('unsendable' in post) return { status: 'failed', result: post.unsendable };
      // Back-Channel Logout 1.0 §2.5: an HTTP POST of `logout_token` as a form; redirects are not followed.
      // CAS 3.0 appendix C: the same, with `logoutRequest`.
      const status = await postForm(post.url, post.body, this.schedule.timeoutMs, {
        allowLoopback: isLoopbackUrl(ctx.config.baseUrl),
        allowed: operatorNetworks(ctx.config.logoutAllowedNetworks),
      });
      // §2.8: "If the logout succeeded, the RP MUST respond with HTTP 200 OK" (any 2xx is taken as success).
      if (status >= 200 && status < 300) return { status: 'delivered', result: 'delivered' };
      result = `HTTP ${status}`;
    } catch (error) {
      result = failureReason(error);
    }
    return this.retryOrGiveUp(ctx.clock.now(), delivery, result);
  }

  private retryOrGiveUp(now: number, delivery: LogoutDelivery, result: string): LogoutDeliveryOutcome {
    const { firstRetryMs, maxRetryMs, giveUpAfterMs } = this.schedule;
    const delay = Math.min(firstRetryMs * 2 ** Math.min(delivery.attempts - 1, 30), maxRetryMs);
    const nextAttemptAt = now + delay;
    const firstAttemptAt = delivery.firstAttemptAt ?? now;
    if (nextAttemptAt - firstAttemptAt > giveUpAfterMs) return { status: 'failed', result };
    return { status: 'pending', result, nextAttemptAt };
  }
}

/** The operator's networks as a BlockList, built once per configuration. */
const networkLists = new WeakMap<readonly string[], BlockList | undefined>();
function operatorNetworks(networks: readonly string[]): BlockList | undefined {
  if (!networkLists.has(networks)) networkLists.set(networks, allowedNetworks(networks));
  return networkLists.get(networks);
}

/**
 * POSTs a form to `uri` and answers the HTTP status, the body unread. Only to an allowed address
 * (src/oauth/delivery-address.ts): a literal IP is checked here, a name on every address it resolves to, by the
 * lookup the socket connects with.
 */
function postForm(
  uri: string,
  body: string,
  timeoutMs: number,
  { allowLoopback, allowed }: { allowLoopback: boolean; allowed: BlockList | undefined },
): Promise<number> {
  const url = new URL(uri);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isAllowedDestination(host, allowLoopback, allowed)) {
    return Promise.reject(new ForbiddenDestinationError(host));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'cache-control': 'no-store',
          'content-length': Buffer.byteLength(body),
        },
        lookup: guardedLookup(allowLoopback, allowed),
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

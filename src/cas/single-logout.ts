/**
 * CAS single logout (Apereo CAS Protocol 3.0 §2.3.3, appendix C; docs/interface.md#cas-protocol): when a
 * session ends, each service whose ticket was validated in it receives a `logoutRequest` naming that ticket.
 * The rows are queued with the back-channel logouts (src/storage/cas-tickets.ts) and posted by the same
 * worker (src/oauth/logout-delivery.ts); this module builds one request's form body.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { LogoutDelivery } from '../storage/store.js';
import { logoutRequest } from './responses.js';
import { sealedTicketAad } from './tickets.js';

/** A CAS row's key: `cas:` and the ticket's digest (the AAD its ticket was sealed with). */
const CAS_ROW = /^cas:([0-9a-f]{64})$/;

/** The POST to make, or why none can be made (the delivery then fails for good). */
export type CasLogoutPost = { readonly url: string; readonly body: string } | { readonly unsendable: string };

/** What building the request needs: the box its ticket was sealed in, and a clock. */
export interface CasLogoutContext {
  readonly secretBox: () => Promise<SecretBox>;
  readonly clock: Clock;
}

export async function casLogoutPost(ctx: CasLogoutContext, delivery: LogoutDelivery): Promise<CasLogoutPost> {
  const ticketHash = CAS_ROW.exec(delivery.sid)?.[1];
  if (!delivery.casService || !delivery.casTicket || !ticketHash)
    return { unsendable: 'malformed CAS delivery' };
  let ticket: string;
  try {
    ticket = (await ctx.secretBox()).open(delivery.casTicket, sealedTicketAad(ticketHash));
  } catch {
    return { unsendable: 'ticket cannot be opened with the key-encryption key' };
  }
  const xml = logoutRequest({
    id: `LR-${randomBytes(16).toString('hex')}`,
    issueInstant: new Date(ctx.clock.now()).toISOString(),
    nameId: String(delivery.uin),
    ticket,
  });
  return { url: delivery.casService, body: new URLSearchParams({ logoutRequest: xml }).toString() };
}

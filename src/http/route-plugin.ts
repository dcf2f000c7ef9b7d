import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.js';

/** Every feature is a Fastify plugin that receives the application context. */
export type RoutePlugin<Extra extends object = object> = FastifyPluginAsyncTypebox<
  { ctx: AppContext } & Extra
>;

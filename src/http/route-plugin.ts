import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.js';

/** Every feature is a Fastify plugin that receives the application context. */
export type RoutePlugin<Extra extends object = object> = FastifyPluginAsyncTypebox<
  { ctx: AppContext } & Extra
>;

/** Registers route plugins in order, each with the application context. */
export async function registerAll(
  app: Parameters<RoutePlugin>[0],
  ctx: AppContext,
  plugins: readonly RoutePlugin[],
): Promise<void> {
  for (const plugin of plugins) await app.register(plugin, { ctx });
}

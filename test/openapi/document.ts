/** Reading the server's OpenAPI document in tests (docs/interface.md#openapi). */
export interface OpenApiResponse {
  readonly description: string;
  readonly headers?: Record<string, unknown>;
  readonly content?: Record<string, { readonly schema: unknown }>;
}

export interface OpenApiOperation {
  readonly responses: Record<string, OpenApiResponse>;
  readonly security?: readonly Record<string, readonly string[]>[];
  readonly tags?: readonly string[];
  readonly 'x-csrf'?: boolean | string;
}

export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, OpenApiOperation>>;
  readonly components: Record<string, unknown>;
}

export async function fetchDocument(baseUrl: string): Promise<OpenApiDocument> {
  const response = await fetch(`${baseUrl}/v1/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

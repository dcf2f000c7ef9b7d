/**
 * Load generation with autocannon, used as a library in the bench process. Latencies are recorded here from
 * autocannon's per-response event with sub-millisecond resolution (autocannon's own histogram keeps whole
 * milliseconds), and every status is counted so that a row with any non-2xx answer can be refused.
 */
import autocannon from 'autocannon';

export interface RequestSpec {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * Either one fixed request, or a function that builds each request (a fresh code per request, a rotating
 * token). `next` answers undefined when it has nothing left to send (codes used up): the run then stops early
 * and is flagged.
 */
export type RequestSource = RequestSpec | { readonly next: () => RequestSpec | undefined };

export interface LoadResult {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly requests: number;
  readonly ok2xx: number;
  readonly non2xx: number;
  /** Socket errors and timeouts. */
  readonly errors: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** True when the request source ran dry before the time was up. */
  readonly exhausted: boolean;
  /** A sample body of a non-2xx answer, to explain a refused row. */
  readonly sampleFailure?: string;
  /** The first 2xx body that failed the row's body check. */
  readonly wrongBody?: string;
}

/** Answers a problem with a 2xx body (undefined when it is what the endpoint should answer). */
export type BodyCheck = (body: string) => string | undefined;

export interface LoadOptions {
  readonly baseUrl: string;
  readonly source: RequestSource;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Applied to the first 2xx body and every 1,000th after it: a 200 must also be the right answer. */
  readonly checkBody?: BodyCheck;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function toAutocannonRequest(spec: RequestSpec): autocannon.Request {
  return {
    method: spec.method,
    path: spec.path,
    headers: { ...spec.headers },
    ...(spec.body === undefined ? {} : { body: spec.body }),
  };
}

interface FailureRecorder {
  onResponse(status: number, body: string): void;
  /** The first non-2xx answer. */
  first(): string | undefined;
  /** The first 2xx answer whose body failed the check. */
  wrongBody(): string | undefined;
}

/** Looks at bodies (autocannon hands them to `onResponse`): the first non-2xx, and a sample of the 2xx. */
function failureRecorder(checkBody: BodyCheck | undefined): FailureRecorder {
  let first: string | undefined;
  let wrong: string | undefined;
  let successes = 0;
  return {
    onResponse(status, body) {
      if (status < 200 || status >= 300) {
        first ??= `${status} ${body.slice(0, 300)}`;
        return;
      }
      if (checkBody === undefined || wrong !== undefined || successes++ % 1000 !== 0) return;
      const problem = checkBody(body);
      if (problem !== undefined) wrong = `${problem}: ${body.slice(0, 300)}`;
    },
    first: () => first,
    wrongBody: () => wrong,
  };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { source } = options;
  let exhausted = false;
  let instance: autocannon.Instance | undefined;
  const failures = failureRecorder(options.checkBody);

  const requests: autocannon.Request[] =
    'next' in source
      ? [
          {
            setupRequest: () => {
              const spec = source.next();
              if (spec === undefined) {
                // Nothing left (codes used up): stop. Until stop() lands, connections send a request that cannot
                // succeed (never a code twice); it is counted as a failure and the row is flagged.
                if (!exhausted) {
                  exhausted = true;
                  setImmediate(() => instance?.stop());
                }
                // autocannon needs `headers` on every request it builds (it crashed without them).
                return { method: 'GET', path: '/__bench_requests_exhausted__', headers: {} };
              }
              return toAutocannonRequest(spec);
            },
            onResponse: failures.onResponse,
          },
        ]
      : [{ ...toAutocannonRequest(source), onResponse: failures.onResponse }];

  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let ok2xx = 0;
  let non2xx = 0;
  const statusCounts: Record<string, number> = {};

  const started = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        duration: options.durationSeconds,
        pipelining: 1,
        timeout: 10,
        requests,
      },
      (error: Error | null, value: autocannon.Result) => (error ? reject(error) : resolve(value)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) {
        ok2xx++;
      } else {
        non2xx++;
      }
    });
  });
  const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;

  const sorted = latencies.subarray(0, count).sort();
  const sampleFailure = failures.first();
  const wrongBody = failures.wrongBody();
  return {
    connections: options.connections,
    durationSeconds: Math.min(elapsedSeconds, result.duration || elapsedSeconds),
    requests: count,
    ok2xx,
    non2xx,
    // autocannon counts timeouts among its errors.
    errors: result.errors,
    // Completed answers per second of wall time (autocannon's per-second average ignores a partial last second).
    rps: count / (result.duration || elapsedSeconds),
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN),
    statusCounts,
    exhausted,
    ...(sampleFailure === undefined ? {} : { sampleFailure }),
    ...(wrongBody === undefined ? {} : { wrongBody }),
  };
}

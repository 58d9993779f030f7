/**
 * Property-based fuzzing of every route of the BFF and the sandbox (fast-check): generated
 * paths, query strings, headers, content types and bodies — mutations of a valid body as well
 * as garbage — sent over loopback HTTP to the real apps. The property: never a 5xx, never a
 * hang, and every 4xx in the route's documented error shape (the spec's `[{tag, description}]`
 * array for the gateway APIs and the frame's, the merchant API's error object, an HTML page for
 * browser pages).
 */
import fc from 'fast-check';
import { routeTable, type FuzzRoute, type FuzzTargets } from './routes';

/** A request hangs when it has no answer in this time. */
const HANG_MS = 15_000;

export interface FuzzCase {
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=xyz',
  'text/plain',
  'application/octet-stream',
  'application/merge-patch+json',
  '',
];

/** Percent-encodes any string, lone surrogates included (as U+FFFD). */
function enc(s: string): string {
  return encodeURIComponent(
    s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );
}

/** Strings a parser is likely to choke on. */
const nasty = fc.constantFrom(
  '%',
  '%ZZ',
  '%E0%A4%A',
  '%00',
  '..%2F..%2Fetc%2Fpasswd',
  '\u0000',
  '\uD800',
  '{"',
  '[]',
  'null',
  '-1',
  '1e309',
  '9'.repeat(40),
  'a'.repeat(5000),
  '<script>alert(1)</script>',
  "' or 1=1 --",
);

const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  nasty,
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** A path segment, percent-encoded or raw-but-valid in a URL. */
const segment = fc.oneof(
  text.map((s) => enc(s)),
  fc.constantFrom('%ZZ', '%', '%E0%A4%A', '..', '.', '%2e%2e', 'ch_x', 'cs_x', '1'),
);

/** Sets, replaces or deletes one field (at any depth) of a valid body. */
function mutate(valid: unknown): fc.Arbitrary<unknown> {
  const paths: string[][] = [];
  const walk = (v: unknown, at: string[]) => {
    if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        paths.push([...at, k]);
        walk(child, [...at, k]);
      }
    }
  };
  walk(valid, []);
  if (paths.length === 0) return fc.constant(valid);
  return fc
    .tuple(
      fc.constantFrom(...paths),
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), text, fc.constant(undefined)),
      fc.oneof(fc.constant(null), fc.string({ maxLength: 12 })),
    )
    .map(([path, value, extraKey]) => {
      const copy = structuredClone(valid) as Record<string, unknown>;
      let node: Record<string, unknown> = copy;
      for (const k of path.slice(0, -1)) node = node[k] as Record<string, unknown>;
      const last = path[path.length - 1]!;
      if (value === undefined) delete node[last];
      else node[last] = value;
      if (extraKey !== null) copy[extraKey] = 1;
      return copy;
    });
}

function bodyOf(route: FuzzRoute, valid: unknown): fc.Arbitrary<string | Uint8Array | undefined> {
  const json = (a: fc.Arbitrary<unknown>) => a.map((v) => JSON.stringify(v) ?? 'null');
  return fc.oneof(
    { weight: 4, arbitrary: json(valid === undefined ? fc.jsonValue() : mutate(valid)) },
    { weight: 1, arbitrary: json(fc.jsonValue({ maxDepth: 3 })) },
    { weight: 1, arbitrary: text },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(fc.constantFrom('PaRes', 'MD', 'PaReq', 'TermUrl', 'otp', 'action', 'x'), text)
        .map((d) => new URLSearchParams(d as Record<string, string>).toString()),
    },
    {
      weight: 1,
      arbitrary: fc.constant('--xyz\r\nContent-Disposition: form-data; name="MD"\r\n\r\n'),
    },
    { weight: route.method === 'GET' ? 6 : 1, arbitrary: fc.constant(undefined) },
  );
}

function caseOf(route: FuzzRoute, targets: FuzzTargets): fc.Arbitrary<FuzzCase> {
  // `:name` segments and a trailing `*` (a file name) are generated.
  const PARAM = /:[A-Za-z]+|\*$/g;
  const params = (route.path.match(PARAM) ?? []).length;
  const ids = route.ids?.(targets) ?? (route.path.endsWith('*') ? ['card-checkout.js'] : ['x']);
  const path = fc
    .tuple(
      fc.array(fc.oneof(segment, fc.constantFrom(...ids)), {
        minLength: params,
        maxLength: params,
      }),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: segment.map((s) => `/${s}`) },
      ),
    )
    .map(([values, tail]) => {
      let i = 0;
      return route.path.replace(PARAM, () => values[i++]!) + tail;
    });
  const query = fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(fc.constantFrom(...(route.queryKeys ?? ['x'])), text),
            fc.oneof(text, nasty),
          ),
          {
            maxLength: 4,
          },
        )
        .map((pairs) => `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('?%', '?a=%ZZ', '?&&=', '?limit=1e999', '?session=%00'),
    },
  );
  const auth = fc.constantFrom(
    ...route.auth(targets),
    undefined,
    'Bearer x',
    'Basic !!!',
    'Bearer',
  );
  const headers = fc
    .tuple(
      fc.constantFrom(...CONTENT_TYPES, route.contentType ?? 'application/json'),
      auth,
      fc.option(fc.constantFrom('1.2.3.4', 'garbage', '1.2.3.4, ::1', ' , ,'), { nil: undefined }),
      fc.option(
        fc.oneof(
          fc.string({ maxLength: 120 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
          fc.constantFrom('cs', 'a.b'),
        ),
        {
          nil: undefined,
        },
      ),
      fc.option(fc.constantFrom('http://evil.example', targets.bffUrl, 'null'), { nil: undefined }),
    )
    .map(([type, authorization, xff, extra, origin]) => {
      const h: Record<string, string> = {};
      if (type) h['content-type'] = type;
      if (authorization) h.authorization = authorization;
      if (xff) h['x-forwarded-for'] = xff;
      if (extra !== undefined) {
        h['idempotency-key'] = extra;
        h['checkout-handshake'] = extra;
        h['x-request-id'] = extra;
      }
      if (origin) h.origin = origin;
      return h;
    });
  return fc.record({ path, query, headers, body: bodyOf(route, route.valid?.(targets)) });
}

export interface RouteReport {
  route: string;
  runs: number;
  statuses: Map<number, number>;
}

/** One request; throws on a 5xx, a hang or a 4xx outside the route's error shape. */
async function send(route: FuzzRoute, base: string, c: FuzzCase, statuses: Map<number, number>) {
  const url = `${base}${c.path}${c.query}`;
  const method = route.method;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: c.headers,
      ...(method !== 'GET' && c.body !== undefined ? { body: c.body as BodyInit } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(HANG_MS),
    });
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError') throw new Error(`hang: ${method} ${url}`);
    // A URL the client itself refuses to send (not the server's doing) is skipped.
    if (e instanceof TypeError && /Invalid URL|invalid/i.test(e.message)) return;
    throw err;
  }
  const body = await res.text();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 500) {
    throw new Error(`${res.status} from ${method} ${url}\n${body.slice(0, 300)}`);
  }
  // Node's HTTP parser refuses a request line or headers over 16 KiB before any app sees it.
  if (res.status === 431 || res.status === 414) return;
  if (res.status >= 400) {
    const type = res.headers.get('content-type') ?? '';
    // `..` segments can carry a case out of the API it was aimed at (fetch normalizes the
    // URL): the error then comes in the shape of wherever it landed.
    const landed = new URL(url).pathname;
    const expected: FuzzRoute['shape'] =
      route.shape === 'api' && !landed.startsWith('/v1/') ? 'json' : route.shape;
    const shape = expected === 'html' && type.startsWith('text/html') ? 'html' : 'json';
    if (shape === 'html') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    const envelope =
      expected === 'envelope' &&
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as { success?: unknown }).success === false &&
      typeof (parsed as { message?: unknown }).message === 'string';
    const error = (parsed as { error?: Record<string, unknown> } | undefined)?.error;
    const apiError =
      expected === 'api' &&
      type.startsWith('application/json') &&
      typeof error === 'object' &&
      error !== null &&
      typeof error.type === 'string' &&
      typeof error.code === 'string' &&
      typeof error.message === 'string' &&
      typeof error.requestId === 'string';
    const ok =
      expected === 'api'
        ? apiError
        : envelope ||
          (type.startsWith('application/json') &&
            Array.isArray(parsed) &&
            parsed.length > 0 &&
            parsed.every(
              (i: unknown) =>
                typeof i === 'object' &&
                i !== null &&
                typeof (i as { tag?: unknown }).tag === 'string' &&
                typeof (i as { description?: unknown }).description === 'string',
            ));
    if (!ok) {
      throw new Error(
        `${res.status} from ${method} ${url} is not the ${expected} error shape: ${type} ${body.slice(0, 200)}`,
      );
    }
  }
}

/** Runs `runs` generated cases against each route; resolves the status counts per route. */
export async function fuzzRoutes(
  targets: FuzzTargets,
  opts: {
    runs: number;
    seed?: number;
    only?: (r: FuzzRoute) => boolean;
    onRoute?: (r: RouteReport) => void;
  },
): Promise<RouteReport[]> {
  const reports: RouteReport[] = [];
  for (const route of routeTable().filter(opts.only ?? (() => true))) {
    const statuses = new Map<number, number>();
    const base = route.app === 'bff' ? targets.bffUrl : targets.sandboxUrl;
    await fc.assert(
      fc.asyncProperty(caseOf(route, targets), (c) => send(route, base, c, statuses)),
      {
        numRuns: opts.runs,
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        endOnFailure: true,
      },
    );
    const report = {
      route: `${route.app} ${route.method} ${route.path}`,
      runs: opts.runs,
      statuses,
    };
    opts.onRoute?.(report);
    reports.push(report);
  }
  return reports;
}

/** A table: one row per route, one column per status seen. */
export function statusTable(reports: RouteReport[]): string {
  const codes = [...new Set(reports.flatMap((r) => [...r.statuses.keys()]))].sort((a, b) => a - b);
  const width = Math.max(...reports.map((r) => r.route.length), 5);
  const head = `${'route'.padEnd(width)}  ${codes.map((c) => String(c).padStart(6)).join('')}`;
  const rows = reports.map(
    (r) =>
      `${r.route.padEnd(width)}  ${codes.map((c) => String(r.statuses.get(c) ?? 0).padStart(6)).join('')}`,
  );
  return [head, ...rows].join('\n');
}

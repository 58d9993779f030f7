/**
 * `npm run events:listen -- --forward-to http://localhost:3000/webhooks`: tails the BFF's new
 * events (`GET /v1/events`, with the merchant secret) and forwards each, signed per Standard
 * Webhooks, to a local URL — `stripe listen` for a merchant developing on a laptop the BFF
 * cannot reach. Prints one line per forward.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import type { EventWithDelivery, ListPage } from '../contract/events';

export interface ListenOptions {
  bffUrl: string;
  merchantSecret: string;
  forwardTo: string;
  /** The `whsec_…` forwards are signed with (what the local endpoint verifies with). */
  signingSecret: string;
  intervalMs?: number;
  /** Forward this many of the newest events already there at start (default 0: new only). */
  replay?: number;
  fetch?: typeof fetch;
  print?: (line: string) => void;
}

const PAGE = 100;
const MAX_PAGES = 10;
const SEEN_CAPACITY = 10_000;

/** The listener; `stop()` ends it after the poll in flight. */
export function startListener(opts: ListenOptions): {
  stop(): Promise<void>;
  ready: Promise<void>;
} {
  const doFetch = opts.fetch ?? fetch;
  const print = opts.print ?? ((l: string) => console.log(l));
  const signer = new Webhook(opts.signingSecret);
  const base = opts.bffUrl.replace(/\/$/, '');
  const seen = new Set<string>();
  const remember = (id: string) => {
    seen.add(id);
    if (seen.size > SEEN_CAPACITY) seen.delete(seen.values().next().value!);
  };
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  /** Events not seen yet, newest first: pages back until a page holds one already seen. */
  async function unseen(): Promise<EventWithDelivery[]> {
    const out: EventWithDelivery[] = [];
    let after: string | undefined;
    for (let i = 0; i < MAX_PAGES; i++) {
      const q = `limit=${PAGE}${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`;
      const res = await doFetch(`${base}/v1/events?${q}`, {
        headers: { authorization: `Bearer ${opts.merchantSecret}` },
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`GET /v1/events answered ${res.status}`);
      const page = (await res.json()) as ListPage<EventWithDelivery>;
      const fresh = page.data.filter((e) => !seen.has(e.id));
      out.push(...fresh);
      if (!page.hasMore || fresh.length < page.data.length || page.data.length === 0) break;
      after = page.data.at(-1)!.id;
    }
    return out;
  }

  async function forward(e: EventWithDelivery): Promise<void> {
    const body = JSON.stringify({ id: e.id, type: e.type, createdAt: e.createdAt, data: e.data });
    const at = new Date();
    const started = performance.now();
    let outcome: string;
    try {
      const res = await doFetch(opts.forwardTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': e.id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signer.sign(e.id, at, body),
        },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      await res.arrayBuffer().catch(() => undefined);
      outcome = String(res.status);
    } catch (err) {
      outcome = `error (${(err as Error).name})`;
    }
    const ms = Math.round(performance.now() - started);
    print(`${at.toISOString()}  --> ${e.type} [${e.id}]  <-- ${outcome} (${ms} ms)`);
  }

  async function poll(first: boolean): Promise<void> {
    try {
      const found = await unseen();
      if (first) {
        const replay = Math.max(0, opts.replay ?? 0);
        for (const e of found.slice(replay)) remember(e.id);
        found.splice(replay);
      }
      for (const e of found.reverse()) {
        remember(e.id);
        await forward(e);
      }
    } catch (err) {
      print(`could not read the BFF's events: ${(err as Error).message}; trying again`);
    }
    if (!stopped) {
      timer = setTimeout(() => {
        running = poll(false);
      }, opts.intervalMs ?? 1_000);
    }
  }

  running = poll(true);
  return {
    ready: running,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

const USAGE = `usage: npm run events:listen -- --forward-to <url> [options]

  --forward-to <url>      where to POST each new event (required)
  --bff-url <url>         the BFF (default BFF_URL, or http://localhost:3001)
  --signing-secret <s>    whsec_… to sign forwards with (default BFF_EVENTS_SECRET; else a new one, printed)
  --interval <ms>         how often to look for new events (default 1000)
  --replay <n>            also forward the newest n events already there
The merchant secret comes from BFF_MERCHANT_SECRET (default sk_test_local, the local BFF's).`;

function main(): void {
  const { values } = parseArgs({
    options: {
      'forward-to': { type: 'string' },
      'bff-url': { type: 'string' },
      'signing-secret': { type: 'string' },
      interval: { type: 'string' },
      replay: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values['forward-to']) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const forwardTo = values['forward-to'];
  if (!/^https?:\/\//.test(forwardTo)) {
    console.error('--forward-to: must be an http(s) URL');
    process.exit(2);
  }
  const interval = Number(values.interval ?? 1000);
  const replay = Number(values.replay ?? 0);
  if (!Number.isInteger(interval) || interval < 100 || !Number.isInteger(replay) || replay < 0) {
    console.error('--interval: at least 100 (ms); --replay: a count of events');
    process.exit(2);
  }
  let signingSecret = values['signing-secret'] ?? process.env.BFF_EVENTS_SECRET;
  if (!signingSecret) {
    signingSecret = `whsec_${randomBytes(32).toString('base64')}`;
    console.log(`Your signing secret is ${signingSecret} (verify the forwards with it)`);
  }
  const bffUrl = values['bff-url'] ?? process.env.BFF_URL ?? 'http://localhost:3001';
  console.log(`Forwarding new events of ${bffUrl} to ${forwardTo} (Ctrl+C stops)`);
  const listener = startListener({
    bffUrl,
    merchantSecret: process.env.BFF_MERCHANT_SECRET ?? 'sk_test_local',
    forwardTo,
    signingSecret,
    intervalMs: interval,
    replay,
  });
  const stop = () => void listener.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && /events-listen\.[cm]?[jt]s$/.test(process.argv[1])) main();

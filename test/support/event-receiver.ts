import type { IncomingMessage } from 'node:http';
import { Hono } from 'hono';
import { Webhook } from 'standardwebhooks';
import type { CheckoutEvent } from '../../contract/events';
import { listen, type RunningServer } from './servers';

/** A Standard Webhooks signing secret for tests: `whsec_` + base64 of 32 bytes. */
export const EVENTS_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

export interface EventReceiver {
  url: string;
  /** Every verified event, in the order it was answered 2xx. */
  received: CheckoutEvent[];
  /** Every request, verified or not, with the status answered. */
  requests: { id: string | null; status: number }[];
  /**
   * Every verified request, in the order it was answered: its `webhook-id`, its event and the
   * status answered (0: the connection was dropped).
   */
  seen: { webhookId: string; event: CheckoutEvent; status: number }[];
  /** The body of every request, verified or not. */
  bodies: string[];
  /** Requests that reached the receiver, answered or not yet. */
  arrived: number;
  /**
   * `ok`: 204; `down`: 503; `hang`: never answers (until `release()`); `error`: 500; `drop`:
   * the connection is destroyed unanswered; `slow`: 204 after `delayMs`.
   */
  mode: 'ok' | 'down' | 'hang' | 'error' | 'drop' | 'slow';
  /** How long `slow` waits before its 204. */
  delayMs: number;
  /** A mode for one request (by `webhook-id`), asked before `mode`; undefined: `mode`. */
  modeFor: ((id: string | null) => EventReceiver['mode'] | undefined) | null;
  /** Answers every request left hanging, with 204. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A merchant's events endpoint on loopback: verifies each request with the `standardwebhooks`
 * package (a bad signature is a 400 and is not recorded as received), answers per `mode`.
 */
export async function startEventReceiver(secret = EVENTS_SECRET): Promise<EventReceiver> {
  const wh = new Webhook(secret);
  const waiting: (() => void)[] = [];
  const state = {
    received: [] as CheckoutEvent[],
    requests: [] as { id: string | null; status: number }[],
    mode: 'ok' as EventReceiver['mode'],
    modeFor: null as EventReceiver['modeFor'],
    seen: [] as EventReceiver['seen'],
    bodies: [] as string[],
    delayMs: 0,
    arrived: 0,
  };
  const app = new Hono().post('/events', async (c) => {
    state.arrived++;
    const body = await c.req.text();
    state.bodies.push(body);
    const id = c.req.header('webhook-id') ?? null;
    let event: CheckoutEvent;
    try {
      event = wh.verify(body, {
        'webhook-id': id ?? '',
        'webhook-timestamp': c.req.header('webhook-timestamp') ?? '',
        'webhook-signature': c.req.header('webhook-signature') ?? '',
      }) as CheckoutEvent;
    } catch {
      state.requests.push({ id, status: 400 });
      return c.body(null, 400);
    }
    const mode = state.modeFor?.(id) ?? state.mode;
    const answer = (status: number) => {
      state.requests.push({ id, status });
      state.seen.push({ webhookId: id ?? '', event, status });
    };
    if (mode === 'down' || mode === 'error') {
      const status = mode === 'down' ? 503 : 500;
      answer(status);
      return c.body(null, status);
    }
    if (mode === 'drop') {
      answer(0);
      (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.destroy();
      return c.body(null, 502);
    }
    if (mode === 'hang') {
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    if (mode === 'slow') await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    answer(204);
    state.received.push(event);
    return c.body(null, 204);
  });
  const server: RunningServer = await listen(app);
  return {
    url: `${server.url}/events`,
    get received() {
      return state.received;
    },
    get requests() {
      return state.requests;
    },
    seen: state.seen,
    bodies: state.bodies,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms) {
      state.delayMs = ms;
    },
    get arrived() {
      return state.arrived;
    },
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    get modeFor() {
      return state.modeFor;
    },
    set modeFor(f) {
      state.modeFor = f;
    },
    release() {
      for (const r of waiting.splice(0)) r();
    },
    close: async () => {
      for (const r of waiting.splice(0)) r();
      await server.close();
    },
  };
}

import type { Logger } from 'pino';

/** The one gateway-client operation registration needs (`createGatewayClient().setWebhook`). */
export interface WebhookRegistrar {
  setWebhook(input: {
    accountNumber: string | number;
    url: string;
    basicAuth: string;
  }): Promise<{ url: string }>;
}

export interface RegisterWebhookOptions {
  /** How the gateway reaches the BFF (`BFF_PUBLIC_URL`). */
  publicUrl: string;
  accountNumber: string;
  /** The Basic credentials the receiver expects (`BFF_WEBHOOK_USER` / `_PASSWORD`). */
  user: string;
  password: string;
  logger: Logger;
  /** Attempts before giving up (the gateway may still be starting). Default 5. */
  attempts?: number;
  /** First pause between attempts, doubled each time. Default 500 ms. */
  delayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Registers `<publicUrl>/webhooks/gateway` as the account's webhook URL, with the receiver's
 * Basic credentials. Retries a few times (the gateway may start after the BFF); resolves
 * whether it succeeded — a failure is logged, never thrown, so the BFF still starts.
 */
export async function registerWebhook(
  gateway: WebhookRegistrar,
  opts: RegisterWebhookOptions,
): Promise<boolean> {
  const url = `${opts.publicUrl.replace(/\/+$/, '')}/webhooks/gateway`;
  const basicAuth = Buffer.from(`${opts.user}:${opts.password}`, 'utf8').toString('base64');
  const attempts = opts.attempts ?? 5;
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  let delay = opts.delayMs ?? 500;
  for (let i = 1; i <= attempts; i++) {
    try {
      await gateway.setWebhook({ accountNumber: opts.accountNumber, url, basicAuth });
      opts.logger.info(
        { event: 'webhook.registered', url, accountNumber: opts.accountNumber },
        'webhook URL registered with the gateway',
      );
      return true;
    } catch (err) {
      opts.logger.warn(
        { event: 'webhook.register_failed', attempt: i, err: { message: (err as Error).message } },
        'webhook registration failed',
      );
      if (i < attempts) {
        await sleep(delay);
        delay *= 2;
      }
    }
  }
  return false;
}

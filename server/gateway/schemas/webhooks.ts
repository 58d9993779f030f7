import { z } from 'zod';
import { respDateTime } from './common';

/*
 * Webhook management and notifications (spec: Integration API, "Webhook management";
 * resources "Webhook subscription", "Webhook notification"; Events).
 *
 * Where the spec is silent or loose, what we accept:
 * - `url` "must be valid and reachable": an absolute http or https URL of at most 2048
 *   characters, without `user:password@` (the spec's credentials travel in `basicAuth`;
 *   reachability is the gateway's to check; the sandbox checks the host accepts a
 *   connection).
 * - `basicAuth` is "Base64 of username:password": required, canonical Base64 whose decoded
 *   text contains a colon, at most 1024 characters.
 * - `accountNumber` is a "string" here but a `long` elsewhere: 1 to 18 digits.
 * - Notification `oldValue` may be absent or null for the first status of a transaction;
 *   `type`'s values are "not shown", so any non-empty string. Unknown extra fields are
 *   dropped, not refused, so a gateway that adds fields does not break the receiver.
 */

/** Query of the three webhook operations. */
export const WebhookAccountQuerySchema = z.object({
  accountNumber: z
    .string({ error: 'is required' })
    .regex(/^\d{1,18}$/, { error: 'must be a whole number of at most 18 digits' }),
});
export type WebhookAccountQuery = z.infer<typeof WebhookAccountQuerySchema>;

function parsedUrl(v: string): URL | null {
  try {
    return new URL(v);
  } catch {
    return null;
  }
}

/**
 * An absolute http or https URL of at most `max` characters, with no user name or password in
 * it: a URL is stored, echoed and logged as it is, so credentials belong in `basicAuth`.
 */
export const httpUrl = (max: number) =>
  z
    .string({ error: 'is required' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine(
      (v) => {
        const u = parsedUrl(v);
        return !!u && (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
      },
      { error: 'must be an absolute http or https URL', abort: true },
    )
    .refine(
      (v) => {
        const u = parsedUrl(v);
        return !u || (u.username === '' && u.password === '');
      },
      { error: 'must not carry a user name or password (send credentials in basicAuth)' },
    );

export const absoluteHttpUrl = httpUrl(2048);

export const basicAuthValue = z
  .string({ error: 'is required' })
  .min(1, { error: 'is required' })
  .max(1024, { error: 'must be at most 1024 characters' })
  .refine(
    (v) =>
      /^[A-Za-z0-9+/]+={0,2}$/.test(v) &&
      v.length % 4 === 0 &&
      Buffer.from(v, 'base64').toString('utf8').includes(':'),
    { error: 'must be the Base64 of username:password' },
  );

/** Body of `POST /api/webhooks/subscriptions?accountNumber`. */
export const WebhookSubscriptionRequestSchema = z.object({
  url: absoluteHttpUrl,
  basicAuth: basicAuthValue,
});
export type WebhookSubscriptionRequest = z.input<typeof WebhookSubscriptionRequestSchema>;

/** Answer of the three webhook operations: the registered (or removed) URL. */
export const WebhookSubscriptionResponseSchema = z.object({ url: z.string() });
export type WebhookSubscriptionResponse = z.infer<typeof WebhookSubscriptionResponseSchema>;

/** The transaction statuses notifications speak of (spec: Events). */
export const TRANSACTION_STATUSES = ['Authorized', 'Canceled', 'Blocked', 'Paid'] as const;

/** A conciliation notification, as POSTed by the gateway to the registered URL. */
export const WebhookNotificationSchema = z.object({
  movementId: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }),
  nsu: z
    .string()
    .min(1, { error: 'is required' })
    .max(100, { error: 'must be at most 100 characters' }),
  codAuth: z.string().max(30, { error: 'must be at most 30 characters' }),
  installmentNumber: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }),
  moment: respDateTime,
  type: z.string().min(1, { error: 'is required' }),
  oldValue: z.string().nullish(),
  newValue: z.string(),
});
export type WebhookNotification = z.infer<typeof WebhookNotificationSchema>;

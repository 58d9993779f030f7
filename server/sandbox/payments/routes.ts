import { Hono } from 'hono';
import {
  CreditPaymentRequestSchema,
  Debit3dsPaymentRequestSchema,
  Validate3dsRequestSchema,
} from '../../gateway/schemas/payments';
import { parseJsonBody } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import { validate3ds } from '../three-ds/service';
import { processCredit, processDebit3ds } from './service';

/** `POST /v1/payments`, `POST /v1/payments/3ds`, `POST /v1/payments/3ds/validate`. */
export function paymentsRoutes(ctx: SandboxContext): Hono<SandboxEnv> {
  return new Hono<SandboxEnv>()
    .post('/payments', async (c) => {
      const body = await parseJsonBody(c, CreditPaymentRequestSchema);
      if (!body.ok) return body.response;
      const answer = await processCredit(ctx, c.get('client'), body.data);
      return c.json(answer.body, answer.status);
    })
    .post('/payments/3ds', async (c) => {
      const body = await parseJsonBody(c, Debit3dsPaymentRequestSchema);
      if (!body.ok) return body.response;
      const answer = await processDebit3ds(ctx, c.get('client'), body.data);
      return c.json(answer.body, answer.status);
    })
    .post('/payments/3ds/validate', async (c) => {
      const body = await parseJsonBody(c, Validate3dsRequestSchema);
      if (!body.ok) return body.response;
      const answer = await validate3ds(ctx, c.get('client'), body.data);
      return c.json(answer.body, answer.status);
    });
}

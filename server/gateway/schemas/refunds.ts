import { z } from 'zod';
import { guid, queryInt } from './common';

export const REFUND_STATUSES = ['PENDENTE', 'CANCELADO', 'APROVADO', 'REJEITADO'] as const;
export const RefundStatusSchema = z.enum(REFUND_STATUSES);
export type RefundStatus = z.infer<typeof RefundStatusSchema>;

/*
 * Where the spec is silent, what we accept: "behavior when take exceeds 100: not shown" — a
 * `take` above 100 (or below 1) is refused rather than clamped, so a caller notices; `skip` and
 * `take` are query strings of digits. `status` is one of the four states (size 50 is moot).
 */

/** Query of `GET /v1/refund/list`. */
export const RefundListQuerySchema = z.object({
  status: RefundStatusSchema.optional(),
  id: guid.optional(),
  skip: queryInt({ min: 0 }).optional().default(0),
  take: queryInt({ min: 1, max: 100 }).optional().default(10),
});
export type RefundListQuery = z.input<typeof RefundListQuerySchema>;

export const CancellationRequestSchema = z.object({
  id: z.string(),
  nsu: z.string(),
  authorizationCode: z.string(),
  /** The spec: "total transaction amount", in reais. */
  amount: z.number(),
  /** Sandbox extension: what a partial request asks back, in reais. */
  requestedAmount: z.number().optional(),
  operationDate: z.string(),
  installments: z.number().int(),
  status: RefundStatusSchema,
  description: z.string(),
});
export type CancellationRequest = z.infer<typeof CancellationRequestSchema>;

export const RefundListResponseSchema = z.object({
  items: z.array(CancellationRequestSchema),
  totalCount: z.number().int(),
  skip: z.number().int(),
  take: z.number().int(),
});
export type RefundListResponse = z.infer<typeof RefundListResponseSchema>;

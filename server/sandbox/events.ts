import type { Logger } from 'pino';
import type { CardBrand, Split } from '../gateway/schemas/payments';

/**
 * A payment as other sandbox domains see it (reconciliation ledger, webhooks, billings).
 * Never holds a card number: only the masked form (first six, last four, 15 chars).
 */
export interface PaymentRecord {
  paymentId: string;
  nsu: string;
  authorizationCode: string;
  /** The client (integrator) that made it. */
  userName: string;
  accountNumber: string;
  merchantId: string;
  transactionType: 'credit' | 'debit';
  productType: string;
  installments: number;
  /** Cents. */
  amount: number;
  brand: CardBrand;
  /** e.g. `400000*****2701`. */
  maskedNumber: string;
  referenceTransaction: string | null;
  configSplit: Split[] | null;
  /** Set when the payment came from a recurrence billing. */
  billingId: string | null;
  /** When it was authorized (ISO 8601). */
  authorizedAt: string;
  /** The request's `urlCallBack`: told of every status change of this payment. */
  urlCallBack: string | null;
}

export type SandboxEvent =
  | { type: 'payment.approved'; payment: PaymentRecord }
  | { type: 'payment.declined'; payment: PaymentRecord & { returnCode: string } }
  | {
      type: 'payment.refund-approved';
      payment: PaymentRecord;
      cancellationRequestId: string;
      at: string;
    }
  | { type: 'payment.canceled'; payment: PaymentRecord; cancellationRequestId: string; at: string };

type Handler<E> = (event: E) => Promise<void> | void;

/**
 * In-process domain events. `emit` awaits every handler in registration order so what a
 * handler writes (ledger rows, webhook outbox) is stored before the API call answers.
 * With `emit` a failing handler is logged and does not undo the payment; with `emitAll` it
 * undoes the change (cancellation decisions).
 */
export class SandboxEvents {
  private readonly handlers = new Map<SandboxEvent['type'], Handler<SandboxEvent>[]>();

  constructor(private readonly logger: Logger) {}

  on<T extends SandboxEvent['type']>(
    type: T,
    handler: Handler<Extract<SandboxEvent, { type: T }>>,
  ): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler as Handler<SandboxEvent>);
    this.handlers.set(type, list);
  }

  async emit(event: SandboxEvent): Promise<void> {
    await this.run(event, false);
  }

  /**
   * Like `emit`, but the first handler failure is thrown (after being logged): called inside
   * `inOneTransaction`, the change that caused the event rolls back with whatever the handlers
   * wrote, rather than committing without its ledger rows or notifications.
   */
  async emitAll(event: SandboxEvent): Promise<void> {
    await this.run(event, true);
  }

  private async run(event: SandboxEvent, rethrow: boolean): Promise<void> {
    for (const handler of this.handlers.get(event.type) ?? []) {
      try {
        await handler(event);
      } catch (err) {
        this.logger.error(
          { err: { message: (err as Error).message }, event: event.type },
          'event handler failed',
        );
        if (rethrow) throw err;
      }
    }
  }
}

/**
 * What the payment flow (`PaymentController`) shows and needs from its element, and what it
 * keeps of a pay it sent.
 */
import type { ReactiveControllerHost } from 'lit';
import type {
  ChallengeCompleteBody,
  ChallengeWindowSize,
  PayBody,
  PublicSession,
} from '../../contract/checkout';
import type { Messages } from '../i18n/messages';
import type { Locale } from '../protocol/constants';
import type { FrameToHostMessage } from '../protocol/messages';
import type { ApiResult } from './api';
import type { ResendState } from './outcome';
import type { FormValues } from './form-model';

/** Drives `render()`. `confirming`: the outcome is not known yet (no retry offered). */
export type Status =
  | 'connecting'
  | 'loading'
  | 'unavailable'
  | 'form'
  | 'paying'
  | 'challenge'
  | 'confirming'
  | 'succeeded'
  | 'ended';

/** What the flow needs from its element. */
export interface PaymentHost extends ReactiveControllerHost {
  readonly values: FormValues;
  readonly m: Messages;
  readonly uiLocale: Locale;
  readonly challengeWindowSize: ChallengeWindowSize;
  send(message: FrameToHostMessage): void;
  /** A session was read: keep the form's choices within what it offers. */
  adopt(session: PublicSession): void;
  /** The payment is done: card data leaves memory. */
  clearCard(): void;
  /** Back from the bank's dialog: focus where the shopper goes on. */
  focusForm(): void;
}

/** Reads started before the controller existed (boot.ts). */
export interface FirstReads {
  session: Promise<ApiResult<PublicSession>>;
  publicKey: Promise<ApiResult<{ key: string }>>;
}

/**
 * A pay or a bank step (the validate call) sent: its body and Idempotency-Key, to send again
 * when its answer is lost, and what its resends were answered.
 */
export type SentStep = ResendState & { key: string } & (
    { kind: 'pay'; body: PayBody } | { kind: 'complete'; body: ChallengeCompleteBody }
  );

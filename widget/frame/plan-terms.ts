/** What a subscription checkout tells the shopper of its plan, in the shopper's words. */
import type { SessionPlan, SubscriptionTrial } from '../../contract/checkout';
import { formatBRL } from '../card/money';
import type { Messages } from '../i18n/messages';
import { fmt, plural } from '../i18n/messages';

/**
 * The period (`a cada 30 dias`) and the consent line above the button: the amount every
 * period until canceled, or as many times as the plan bills (a Custom plan ends after its
 * count); with a trial, that nothing is charged before it ends.
 */
export function planTerms(m: Messages, plan: SessionPlan): { every: string; consent: string } {
  const every = fmt(m.every, plan.intervalDays);
  const amount = formatBRL(plan.amount);
  const charges = plan.installments ?? 0;
  let consent =
    charges > 0 ? plural(m.consentCharges, charges, amount, every) : fmt(m.consent, amount, every);
  const trialDays = plan.trialDays ?? 0;
  if (trialDays > 0) consent += ` ${plural(m.trialConsent, trialDays)}`;
  return { every, consent };
}

/**
 * What the shopper is told of a success: the amount received, or for a subscription started
 * on a trial (nothing charged: never "we received your payment") the day of the first charge.
 */
export function successNotice(
  m: Messages,
  amount: number,
  trial: SubscriptionTrial | undefined,
): string {
  if (!trial) return `${m.succeeded}. ${fmt(m.succeededDetail, formatBRL(amount))}`;
  const [year = '', month = '', day = ''] = trial.firstChargeOn.split('-');
  return `${m.subscribed}. ${fmt(m.subscribedTrialDetail, fmt(m.date, year, month, day))}`;
}

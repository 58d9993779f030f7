import { describe, expect, it } from 'vitest';
import type { SessionPlan } from '../../../../contract/checkout';
import { planTerms, successNotice } from '../../../../widget/frame/plan-terms';
import { messagesFor } from '../../../../widget/i18n';

// formatBRL writes a no-break space after R$ (as Intl does).
const monthly: SessionPlan = {
  id: 'p1',
  name: 'Gold',
  amount: 3990,
  intervalDays: 30,
  description: 'Gold membership',
  trialDays: 0,
};

describe('the terms a plan is shown with', () => {
  const pt = messagesFor('pt-BR');
  const en = messagesFor('en');

  it('without a trial: the amount, the period, until canceled', () => {
    expect(planTerms(pt, monthly)).toEqual({
      every: 'a cada 30 dias',
      consent: 'Autorizo a cobrança recorrente de R$\u00a039,90 a cada 30 dias até eu cancelar.',
    });
    // A session made before the BFF kept the trial says nothing of one.
    const { trialDays: _, ...old } = monthly;
    expect(planTerms(pt, old).consent).toBe(planTerms(pt, monthly).consent);
  });

  it('with a trial: the first charge comes after it', () => {
    const trial = { ...monthly, trialDays: 7 };
    expect(planTerms(pt, trial).consent).toBe(
      'Autorizo a cobrança recorrente de R$\u00a039,90 a cada 30 dias até eu cancelar. ' +
        'Nada é cobrado agora: a primeira cobrança é feita após 7 dias de teste grátis.',
    );
    expect(planTerms(en, { ...monthly, trialDays: 1 }).consent).toBe(
      'I authorize recurring charges of R$\u00a039,90 every 30 days until I cancel. ' +
        'Nothing is charged now: the first charge comes after a 1-day free trial.',
    );
  });
});

describe('a plan that ends after a number of charges', () => {
  const pt = messagesFor('pt-BR');
  const en = messagesFor('en');

  it('says how many, not "until I cancel"', () => {
    const ten = { ...monthly, installments: 10 };
    expect(planTerms(pt, ten).consent).toBe(
      'Autorizo 10 cobranças de R$\u00a039,90 a cada 30 dias.',
    );
    expect(planTerms(en, ten).consent).toBe(
      'I authorize 10 charges of R$\u00a039,90 every 30 days.',
    );
    expect(planTerms(pt, { ...monthly, installments: 1 }).consent).toBe(
      'Autorizo 1 cobrança de R$\u00a039,90.',
    );
    expect(planTerms(pt, { ...ten, trialDays: 7 }).consent).toBe(
      'Autorizo 10 cobranças de R$\u00a039,90 a cada 30 dias. ' +
        'Nada é cobrado agora: a primeira cobrança é feita após 7 dias de teste grátis.',
    );
  });

  it('0, or a session that did not keep it, is until canceled', () => {
    const until = 'Autorizo a cobrança recorrente de R$\u00a039,90 a cada 30 dias até eu cancelar.';
    expect(planTerms(pt, { ...monthly, installments: 0 }).consent).toBe(until);
    expect(planTerms(pt, monthly).consent).toBe(until);
  });
});

describe('a subscription started on a trial', () => {
  it('is announced as started, nothing charged, with the first charge date', () => {
    const trial = { days: 7, firstChargeOn: '2026-12-03' };
    expect(successNotice(messagesFor('pt-BR'), 0, trial)).toBe(
      'Assinatura iniciada. Nada foi cobrado agora; a primeira cobrança será em 03/12/2026.',
    );
    expect(successNotice(messagesFor('en'), 0, trial)).toBe(
      'Subscription started. Nothing was charged now; the first charge will be on 12/03/2026.',
    );
    // A payment charged says so.
    expect(successNotice(messagesFor('pt-BR'), 3990, undefined)).toBe(
      'Pagamento aprovado. Recebemos seu pagamento de R$\u00a039,90.',
    );
  });
});

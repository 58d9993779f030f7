import { CARDS, expect, test } from './fixtures';

test.describe('paying in the demo', () => {
  test('frictionless debit: succeeded event, then the order page confirms with the BFF', async ({
    checkout,
    order,
    merchant,
  }) => {
    const sessionId = await checkout.sessionId();
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    const succeeded = await checkout.waitForEvent('checkout-succeeded');
    expect(succeeded).toMatchObject({ method: 'debit', amount: 4990 });
    expect(succeeded.paymentId).toBeTruthy();

    await order.expectPaid();
    await expect(order.amount).toHaveText('R$\u00a049,90');
    await expect(order.method).toHaveText('Débito');
    await expect(order.paymentId).toHaveText(succeeded.paymentId!);

    const session = await merchant.session(sessionId);
    expect(session.status).toBe('succeeded');
    expect(session.attempts.map((a) => a.status)).toEqual(['succeeded']);
  });

  test('declined, then paid with another card in the same session', async ({
    checkout,
    order,
    merchant,
    page,
  }) => {
    const sessionId = await checkout.sessionId();
    await checkout.payWith({ number: CARDS.declined }, 'debit');
    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed).toMatchObject({ code: 'declined', retryable: true });
    await expect(checkout.alert).not.toBeEmpty();
    // One message per failure: the frame's; the merchant page does not repeat it.
    await expect(checkout.pageError).toHaveCount(0);

    await checkout.cardNumber.fill(CARDS.frictionless);
    await checkout.pay.click();
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
    expect(page.url()).toContain(sessionId);

    const session = await merchant.session(sessionId);
    expect(session.attempts.map((a) => a.status)).toEqual(['declined', 'succeeded']);
  });

  test('credit in 3 installments with an Elo card', async ({ checkout, order, merchant }) => {
    const sessionId = await checkout.sessionId();
    await checkout.chooseMethod('credit');
    await checkout.fillCard({ number: CARDS.elo });
    await expect(checkout.frame.locator('#cardNumber-brand')).toHaveAttribute('data-brand', 'elo');
    await checkout.chooseInstallments(3);
    await checkout.pay.click();
    const succeeded = await checkout.waitForEvent('checkout-succeeded');
    expect(succeeded.method).toBe('credit');

    await order.expectPaid();
    await expect(order.method).toHaveText('Crédito em 3 parcelas');
    const session = await merchant.session(sessionId);
    expect(session.attempts).toHaveLength(1);
    expect(session.attempts[0]).toMatchObject({
      method: 'credit',
      installments: 3,
      status: 'succeeded',
      amount: 4990,
    });
  });

  test('Amex is formatted 4-6-5 and asks for a 4-digit security code', async ({
    checkout,
    order,
  }) => {
    await checkout.chooseMethod('credit');
    await checkout.cardNumber.fill(CARDS.amex);
    await expect(checkout.cardNumber).toHaveValue('3400 000000 02708');
    await expect(checkout.frame.locator('#cardNumber-brand')).toHaveAttribute('data-brand', 'amex');
    await expect(checkout.securityCode).toHaveAttribute('maxlength', '4');

    await checkout.cardholderName.fill('JOANA SOUZA');
    await checkout.expiry.fill('1230');
    await checkout.securityCode.fill('123');
    await checkout.pay.click();
    await expect(checkout.fieldError('securityCode')).not.toBeEmpty();
    expect(await checkout.events('checkout-submit')).toHaveLength(0);

    await checkout.securityCode.fill('1234');
    await expect(checkout.fieldError('securityCode')).toBeEmpty();
    await checkout.pay.click();
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
  });

  test('a Hipercard number is detected as Hipercard', async ({ checkout }) => {
    await checkout.cardNumber.fill(CARDS.hipercard);
    await expect(checkout.frame.locator('#cardNumber-brand')).toHaveAttribute(
      'data-brand',
      'hipercard',
    );
    await expect(checkout.cardNumber).toHaveValue('6062 8256 2425 4001');
    const change = (await checkout.events('checkout-change')).at(-1);
    expect(change?.brand).toBe('hipercard');
  });

  test('inline errors for a bad Luhn number and a past expiry; nothing is sent', async ({
    checkout,
  }) => {
    await checkout.chooseMethod('debit');
    await checkout.fillCard({ number: '4000000000002702', expiry: '01/20' });
    await checkout.pay.click();
    await expect(checkout.fieldError('cardNumber')).not.toBeEmpty();
    await expect(checkout.fieldError('expiry')).not.toBeEmpty();
    await expect(checkout.cardNumber).toHaveAttribute('aria-invalid', 'true');
    await expect(checkout.expiry).toHaveAttribute('aria-invalid', 'true');
    await expect(checkout.fieldError('cardholderName')).toBeEmpty();
    expect(await checkout.events('checkout-submit')).toHaveLength(0);
  });

  test('a double click pays once', async ({ checkout, order, merchant, page }) => {
    const sessionId = await checkout.sessionId();
    const pays: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/checkout/api/pay')) pays.push(r.url());
    });
    await checkout.chooseMethod('debit');
    await checkout.fillCard({ number: CARDS.frictionless });
    await checkout.pay.dblclick();
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();

    const session = await merchant.session(sessionId);
    expect(session.attempts.filter((a) => a.status === 'succeeded')).toHaveLength(1);
    expect(session.attempts).toHaveLength(1);
    expect(pays.length).toBeLessThanOrEqual(1);
  });
});

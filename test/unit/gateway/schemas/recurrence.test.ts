import { describe, expect, it } from 'vitest';
import {
  BillingSchema,
  BillingSearchQuerySchema,
  CreatePlanRequestSchema,
  CreateSubscriptionRequestSchema,
  PlanIdResponseSchema,
  PlanSchema,
  PlanSearchQuerySchema,
  PlanSearchResponseSchema,
  PlanStatusRequestSchema,
  RecurrenceIdSchema,
  SubscriptionIdObjectResponseSchema,
  SubscriptionSchema,
  SubscriptionSearchQuerySchema,
  SubscriptionStatusRequestSchema,
  SubscriptionVaultRequestSchema,
  UpdatePlanRequestSchema,
} from '../../../../server/gateway/schemas/recurrence';

const plan = {
  name: 'Gold',
  description: 'Gold plan',
  amount: 49.9,
  planType: 'Monthly',
  paymentMethod: 'CreditCard',
};

/** First issue path of a failed parse, dotted; '' when it passed. */
function firstPath(r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) {
  return r.success ? '' : r.error!.issues[0]!.path.map(String).join('.');
}

describe('CreatePlanRequestSchema', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['the minimal Monthly plan', {}, ''],
    ['name of 255', { name: 'n'.repeat(255) }, ''],
    ['name of 256', { name: 'n'.repeat(256) }, 'name'],
    ['empty name', { name: '' }, 'name'],
    ['description of 256', { description: 'd'.repeat(256) }, 'description'],
    ['merchantId of 20', { merchantId: '1'.repeat(20) }, ''],
    ['merchantId of 21', { merchantId: '1'.repeat(21) }, 'merchantId'],
    ['amount with 12 integer digits', { amount: 999999999999.5 }, ''],
    ['amount with 6 decimals', { amount: 1.123456 }, ''],
    ['amount with 13 integer digits', { amount: 1234567890123 }, 'amount'],
    ['amount with 7 decimals', { amount: 1.1234567 }, 'amount'],
    ['amount 0', { amount: 0 }, 'amount'],
    ['amount as a string', { amount: '49.90' }, 'amount'],
    ['every plan type', { planType: 'Yearly' }, ''],
    ['an unknown plan type', { planType: 'Weekly' }, 'planType'],
    ['plan type in lowercase', { planType: 'monthly' }, 'planType'],
    ['paymentMethod other than CreditCard', { paymentMethod: 'DebitCard' }, 'paymentMethod'],
    ['attempts 0', { attempts: 0 }, ''],
    ['attempts 4', { attempts: 4 }, ''],
    ['attempts 5', { attempts: 5 }, 'attempts'],
    ['attempts -1', { attempts: -1 }, 'attempts'],
    ['trialDays 0', { trialDays: 0 }, ''],
    ['trialDays -1', { trialDays: -1 }, 'trialDays'],
    ['trialDays 1.5', { trialDays: 1.5 }, 'trialDays'],
    [
      'Custom with interval 20 and installments 1',
      { planType: 'Custom', interval: 20, installments: 1 },
      '',
    ],
    ['Custom with interval 19', { planType: 'Custom', interval: 19, installments: 1 }, 'interval'],
    ['Custom without interval', { planType: 'Custom', installments: 3 }, 'interval'],
    [
      'Custom with installments 0',
      { planType: 'Custom', interval: 30, installments: 0 },
      'installments',
    ],
    ['Custom without installments', { planType: 'Custom', interval: 30 }, 'installments'],
    ['Monthly with interval sent anyway', { interval: 30, installments: 0 }, ''],
  ])('%s', (_name, patch, path) => {
    const r = CreatePlanRequestSchema.safeParse({ ...plan, ...patch });
    expect(firstPath(r)).toBe(path);
    expect(r.success).toBe(path === '');
  });

  it.each(['name', 'description', 'amount', 'planType', 'paymentMethod'])(
    'requires %s',
    (field) => {
      const body: Record<string, unknown> = { ...plan };
      delete body[field];
      expect(firstPath(CreatePlanRequestSchema.safeParse(body))).toBe(field);
    },
  );
});

describe('UpdatePlanRequestSchema', () => {
  it('requires merchantId, unlike creation', () => {
    expect(firstPath(UpdatePlanRequestSchema.safeParse(plan))).toBe('merchantId');
    expect(UpdatePlanRequestSchema.safeParse({ ...plan, merchantId: '1001' }).success).toBe(true);
  });
  it('applies the Custom rules', () => {
    expect(
      firstPath(
        UpdatePlanRequestSchema.safeParse({ ...plan, merchantId: '1', planType: 'Custom' }),
      ),
    ).toBe('interval');
  });
});

describe('status bodies', () => {
  it.each([
    [PlanStatusRequestSchema, 'Active', true],
    [PlanStatusRequestSchema, 'Inactive', true],
    [PlanStatusRequestSchema, 'Canceled', true],
    [PlanStatusRequestSchema, 'Actived', false],
    [SubscriptionStatusRequestSchema, 'Actived', true],
    [SubscriptionStatusRequestSchema, 'Canceled', true],
    [SubscriptionStatusRequestSchema, 'Active', false],
    [SubscriptionStatusRequestSchema, 'Blocked', false],
  ] as const)('%#: %s', (schema, status, ok) => {
    expect(schema.safeParse({ status }).success).toBe(ok);
  });
});

describe('subscription bodies and ids', () => {
  const sub = { vaultId: 'v'.repeat(36), orderNumber: '1'.repeat(10), planId: 'p'.repeat(36) };
  it.each<[string, Record<string, unknown>, string]>([
    ['sizes at their limits', {}, ''],
    ['vaultId of 37', { vaultId: 'v'.repeat(37) }, 'vaultId'],
    ['orderNumber of 11', { orderNumber: '1'.repeat(11) }, 'orderNumber'],
    ['planId of 37', { planId: 'p'.repeat(37) }, 'planId'],
    ['empty orderNumber', { orderNumber: '' }, 'orderNumber'],
  ])('%s', (_n, patch, path) => {
    expect(firstPath(CreateSubscriptionRequestSchema.safeParse({ ...sub, ...patch }))).toBe(path);
  });
  it('vault body and path ids are at most 36', () => {
    expect(SubscriptionVaultRequestSchema.safeParse({ vaultId: 'v'.repeat(36) }).success).toBe(
      true,
    );
    expect(SubscriptionVaultRequestSchema.safeParse({ vaultId: 'v'.repeat(37) }).success).toBe(
      false,
    );
    expect(RecurrenceIdSchema.safeParse('x'.repeat(36)).success).toBe(true);
    expect(RecurrenceIdSchema.safeParse('x'.repeat(37)).success).toBe(false);
    expect(RecurrenceIdSchema.safeParse('').success).toBe(false);
  });
});

describe('search queries', () => {
  it.each<[string, Record<string, string>, string]>([
    ['nothing', {}, ''],
    ['page and limit', { page: '2', limit: '50' }, ''],
    ['page 0', { page: '0' }, 'page'],
    ['page not a number', { page: 'two' }, 'page'],
    ['limit 1.5', { limit: '1.5' }, 'limit'],
    ['status Inactive', { status: 'Inactive' }, ''],
    ['status Actived', { status: 'Actived' }, 'status'],
    ['name of 256', { name: 'n'.repeat(256) }, 'name'],
  ])('plans: %s', (_n, q, path) => {
    expect(firstPath(PlanSearchQuerySchema.safeParse(q))).toBe(path);
  });

  it('parses page and limit to numbers', () => {
    expect(PlanSearchQuerySchema.parse({ page: '3', limit: '7' })).toEqual({ page: 3, limit: 7 });
  });

  it.each<[Record<string, string>, string]>([
    [{ status: 'Blocked' }, ''],
    [{ status: 'Actived' }, 'status'],
    [{ planName: 'Gold' }, ''],
  ])('subscriptions: %j', (q, path) => {
    expect(firstPath(SubscriptionSearchQuerySchema.safeParse(q))).toBe(path);
  });

  it.each<[Record<string, string>, string]>([
    [{ status: 'PaymentInvalid' }, ''],
    [{ status: 'Pending' }, 'status'],
    [{ mid: '1'.repeat(20) }, ''],
    [{ mid: '1'.repeat(21) }, 'mid'],
    [{ expirationDateRangeStartDate: '2026-02-28' }, ''],
    [{ expirationDateRangeStartDate: '2026-02-30' }, 'expirationDateRangeStartDate'],
    [{ expirationDateRangeEndDate: '28/02/2026' }, 'expirationDateRangeEndDate'],
    [
      { expirationDateRangeStartDate: '2026-03-01', expirationDateRangeEndDate: '2026-02-01' },
      'expirationDateRangeEndDate',
    ],
  ])('billings: %j', (q, path) => {
    expect(firstPath(BillingSearchQuerySchema.safeParse(q))).toBe(path);
  });
});

describe('resources and answers', () => {
  const planResource = {
    id: 'p1',
    merchantId: '000000000001001',
    name: 'Gold',
    description: 'Gold plan',
    amount: 49.9,
    planType: 'Custom',
    trialDays: 7,
    paymentMethod: 'CreditCard',
    interval: 20,
    installments: 12,
    status: 'Active',
    attempts: 4,
    createdDate: '2026-01-01T00:00:00.000Z',
  };
  const subscription = {
    id: 's1',
    vaultId: 'v1',
    orderNumber: '42',
    status: 'Active',
    plan: planResource,
    createdDate: '2026-01-01T00:00:00-03:00',
  };

  it('a plan, with createdBy optional and a local datetime accepted', () => {
    expect(PlanSchema.safeParse(planResource).success).toBe(true);
    expect(
      PlanSchema.safeParse({ ...planResource, createdBy: 'u', createdDate: '2026-01-01T00:00:00' })
        .success,
    ).toBe(true);
    expect(PlanSchema.safeParse({ ...planResource, status: 'Blocked' }).success).toBe(false);
    expect(PlanSchema.safeParse({ ...planResource, createdDate: 'yesterday' }).success).toBe(false);
  });

  it.each(['Active', 'Canceled', 'Blocked'])('a subscription %s with its plan', (status) => {
    expect(SubscriptionSchema.safeParse({ ...subscription, status }).success).toBe(true);
  });

  it('a subscription status Actived is not a record status', () => {
    expect(SubscriptionSchema.safeParse({ ...subscription, status: 'Actived' }).success).toBe(
      false,
    );
  });

  it.each([
    ['Opened', true],
    ['PaymentInvalid', true],
    ['Canceled', true],
    ['Denied', true],
    ['Paid', true],
    ['Pending', false],
  ])('a billing %s', (status, ok) => {
    const billing = {
      id: 'b1',
      status,
      expireAt: '2026-02-01T00:00:00Z',
      amount: 49.9,
      installment: 1,
      subscription,
      createdDate: '2026-01-01T00:00:00Z',
      modifiedDate: '2026-01-01T00:00:00Z',
    };
    expect(BillingSchema.safeParse(billing).success).toBe(ok);
  });

  it('the search envelope and the id answers', () => {
    expect(
      PlanSearchResponseSchema.safeParse({ items: [planResource], page: 1, limit: 10, total: 1 })
        .success,
    ).toBe(true);
    expect(PlanSearchResponseSchema.safeParse({ items: [], page: 1, limit: 10 }).success).toBe(
      false,
    );
    expect(PlanIdResponseSchema.safeParse('p1').success).toBe(true);
    expect(PlanIdResponseSchema.safeParse({ id: 'p1' }).success).toBe(false);
    expect(SubscriptionIdObjectResponseSchema.safeParse({ id: 's1' }).success).toBe(true);
    expect(SubscriptionIdObjectResponseSchema.safeParse('s1').success).toBe(false);
  });
});

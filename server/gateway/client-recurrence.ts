import {
  BillingIdResponseSchema,
  BillingSearchResponseSchema,
  PlanIdResponseSchema,
  PlanSchema,
  PlanSearchResponseSchema,
  SubscriptionIdObjectResponseSchema,
  SubscriptionIdResponseSchema,
  SubscriptionSchema,
  SubscriptionSearchResponseSchema,
  type CreatePlanRequest,
  type CreateSubscriptionRequest,
  type PlanStatus,
  type UpdatePlanRequest,
} from './schemas';
import {
  type BillingSearchParams,
  type PlanSearchParams,
  type SubscriptionSearchParams,
  seg,
} from './client-params';
import type { GatewayCallOptions, Transport } from './transport';

/**
 * The Gateway API's recurrence operations (recurrence credentials): plans, subscriptions and
 * billings.
 */
export function recurrenceCalls(call: Transport['call']) {
  return {
    // ---- Recurrence (Gateway API, recurrence credentials) ---------------------------------

    /** `POST /v1/recurrences/plans`: resolves the new plan id. */
    createPlan: (body: CreatePlanRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'createPlan',
          family: 'recurrence',
          method: 'POST',
          path: '/v1/recurrences/plans',
          body,
          schema: PlanIdResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/plans?name&status&orderBy&page&limit`. */
    searchPlans: (query: PlanSearchParams = {}, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchPlans',
          family: 'recurrence',
          method: 'GET',
          path: '/v1/recurrences/plans',
          query,
          schema: PlanSearchResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/plans/{planId}`. */
    getPlan: (planId: string, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'getPlan',
          family: 'recurrence',
          method: 'GET',
          path: `/v1/recurrences/plans/${seg(planId)}`,
          pathIds: { planId },
          schema: PlanSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/plans/{planId}`: resolves the plan id. */
    updatePlan: (input: { planId: string; body: UpdatePlanRequest }, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'updatePlan',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/plans/${seg(input.planId)}`,
          pathIds: { planId: input.planId },
          body: input.body,
          schema: PlanIdResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/plans/{planId}/status`: resolves the plan id. */
    setPlanStatus: (input: { planId: string; status: PlanStatus }, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'setPlanStatus',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/plans/${seg(input.planId)}/status`,
          pathIds: { planId: input.planId },
          body: { status: input.status },
          schema: PlanIdResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/subscriptions`: resolves the new subscription id. */
    createSubscription: (body: CreateSubscriptionRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'createSubscription',
          family: 'recurrence',
          method: 'POST',
          path: '/v1/recurrences/subscriptions',
          body,
          schema: SubscriptionIdResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/subscriptions?planName&status&orderBy&page&limit`. */
    searchSubscriptions: (query: SubscriptionSearchParams = {}, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchSubscriptions',
          family: 'recurrence',
          method: 'GET',
          path: '/v1/recurrences/subscriptions',
          query,
          schema: SubscriptionSearchResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/subscriptions/{subscriptionId}`. */
    getSubscription: (subscriptionId: string, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'getSubscription',
          family: 'recurrence',
          method: 'GET',
          path: `/v1/recurrences/subscriptions/${seg(subscriptionId)}`,
          pathIds: { subscriptionId },
          schema: SubscriptionSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/subscriptions/{id}/status` (`Actived` or `Canceled`): `{id}`. */
    setSubscriptionStatus: (
      input: { subscriptionId: string; status: 'Actived' | 'Canceled' },
      o?: GatewayCallOptions,
    ) =>
      call(
        {
          operation: 'setSubscriptionStatus',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/subscriptions/${seg(input.subscriptionId)}/status`,
          pathIds: { subscriptionId: input.subscriptionId },
          body: { status: input.status },
          schema: SubscriptionIdObjectResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/subscriptions/{id}/vault`: binds another card; `{id}`. */
    setSubscriptionVault: (
      input: { subscriptionId: string; vaultId: string },
      o?: GatewayCallOptions,
    ) =>
      call(
        {
          operation: 'setSubscriptionVault',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/subscriptions/${seg(input.subscriptionId)}/vault`,
          pathIds: { subscriptionId: input.subscriptionId },
          body: { vaultId: input.vaultId },
          schema: SubscriptionIdObjectResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/billing?mid&status&expirationDateRange…&orderBy&page&limit`. */
    searchBillings: (query: BillingSearchParams = {}, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchBillings',
          family: 'recurrence',
          method: 'GET',
          path: '/v1/recurrences/billing',
          query,
          schema: BillingSearchResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/billing/{billingId}/cancel`: resolves the billing id. */
    cancelBilling: (billingId: string, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'cancelBilling',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/billing/${seg(billingId)}/cancel`,
          pathIds: { billingId },
          schema: BillingIdResponseSchema,
        },
        o,
      ),
  };
}

/**
 * The card form's template: a pure function of what the element exposes, so the element keeps
 * properties, lifecycle and handlers, and the flow lives in its controller.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { PaymentMethod, PublicSession } from '../../contract/checkout';
import type { CardBrand } from '../card/brand';
import { brandName, CARD_BRANDS } from '../card/brand';
import { formatBRL, installmentOptions } from '../card/money';
import type { Messages } from '../i18n/messages';
import { fmt } from '../i18n/messages';
import type { FieldName } from '../protocol/messages';
import { FIELDS } from './fields';
import type { FormValues } from './form-model';
import { installmentText } from './installments';
import { planTerms } from './plan-terms';
import type { PaymentController } from './payment-controller';

/** What the template reads from the element. */
export interface CardFormView {
  readonly m: Messages;
  readonly flow: PaymentController;
  readonly values: FormValues;
  readonly brand: CardBrand | null;
  readonly hideButton: boolean;
  readonly submitLabel: string | null;
  shownError(name: FieldName): string;
  onInput(e: InputEvent): void;
  onMethodChange(e: Event): void;
  onInstallmentsChange(e: Event): void;
  onSubmit(e: SubmitEvent): void;
  onBlur(e: FocusEvent): void;
}

export function renderCardForm(v: CardFormView): TemplateResult {
  const { m, flow } = v;
  // The frame is a document of its own: one main landmark and one h1 (visually hidden).
  // The notice is the one live region for outcomes; always in the DOM so changes are heard.
  const kind = `${flow.noticeKind === 'failure' ? 'failure' : ''} ${flow.notice ? 'shown' : ''}`;
  return html`<main>
    <h1 class="sr-only">${m.frameTitle}</h1>
    <div class="notice ${kind}" role="alert" aria-live="assertive" aria-atomic="true">
      ${flow.notice}
    </div>
    ${flow.expiring ? html`<p class="hint" role="status">${flow.expiring}</p>` : nothing} ${body(v)}
  </main>`;
}

function body(v: CardFormView): TemplateResult | typeof nothing {
  const { m, flow } = v;
  switch (flow.status) {
    // Nothing to draw before the host answers (the frame is 0 px high until then): the frame's
    // first task ends sooner, and the host, often on the same thread, answers the hello sooner.
    case 'connecting':
    case 'unavailable':
    case 'ended':
      return nothing;
    case 'succeeded':
      return html`<div class="done"><h2>${m.succeeded}</h2></div>`;
    default:
      // While loading too: the fields need no session, so they are drawn while the session and
      // the card key are read; what the session decides (amount, methods) fills in after.
      return form(v, flow.session);
  }
}

/** A brand's mark, a symbol of the form's sprite, named for assistive technology. */
function mark(brand: CardBrand, label: string, id?: string): TemplateResult {
  return html`<svg
    class="mark"
    viewBox="0 0 32 20"
    role="img"
    aria-label=${label}
    id=${id ?? nothing}
    data-brand=${brand}
  >
    <use href="#${brand}"></use>
  </svg>`;
}

function field(v: CardFormView, name: FieldName, busy: boolean): TemplateResult {
  const { m, brand } = v;
  const f = FIELDS[name];
  const error = v.shownError(name);
  const hint = f.hint?.(m, brand);
  const describedBy = `${name}-error${hint ? ` ${name}-hint` : ''}${
    name === 'cardNumber' && brand ? ' cardNumber-brand' : ''
  }`;
  const input = html`<input
    id=${name}
    name=${name}
    type="text"
    inputmode=${f.numeric ? 'numeric' : nothing}
    autocomplete=${f.autocomplete}
    autocapitalize=${f.caps ? 'characters' : nothing}
    autocorrect="off"
    spellcheck="false"
    maxlength=${f.maxLength?.(brand) ?? nothing}
    placeholder=${f.placeholder?.(m) ?? nothing}
    ?required=${!f.optional}
    aria-invalid=${!!error}
    aria-describedby=${describedBy}
    .value=${v.values[name]}
    ?disabled=${busy}
    @input=${v.onInput}
  />`;
  return html`<div class="field">
    <label for=${name}>${m[name]}${f.optional ? ` (${m.optional})` : ''}</label>
    ${
      name === 'cardNumber'
        ? html`<div class="with-mark">
            ${input}${brand ? mark(brand, fmt(m.cardBrand, brandName(brand)), 'cardNumber-brand') : nothing}
          </div>`
        : input
    }
    ${hint ? html`<span class="hint" id="${name}-hint">${hint}</span>` : nothing}
    <p class="error" id="${name}-error">${error}</p>
  </div>`;
}

function form(v: CardFormView, session: PublicSession | null): TemplateResult {
  const { m, flow } = v;
  const values = v.values;
  const busy = flow.busy;
  // No session yet: the shopper may type, not pay.
  const waiting = flow.status === 'loading';
  const amount = session?.plan?.amount ?? session?.amount ?? 0;
  const methods: PaymentMethod[] = session?.methods ?? ['credit'];
  const plan = session?.plan;
  const showInstallments =
    values.method === 'credit' && !plan && (session?.maxInstallments ?? 1) > 1;
  const terms = plan ? planTerms(m, plan) : null;
  // While confirming, the notice says so; the button only shows that work goes on.
  const label = busy
    ? m.paying
    : waiting
      ? m.loading
      : flow.resume
        ? m.challengeResume
        : (v.submitLabel ?? (plan ? m.subscribe : fmt(m.pay, formatBRL(amount))));
  return html`${
      plan
        ? html`<p class="hint" part="plan">
            <strong>${plan.name}</strong><br />${formatBRL(amount)} ${terms?.every}
          </p>`
        : nothing
    }
    <form
      part="form"
      novalidate
      aria-busy=${busy || waiting}
      @submit=${v.onSubmit}
      @focusout=${v.onBlur}
    >
      ${
        methods.length > 1
          ? html`<fieldset>
              <legend>${m.method}</legend>
              <div class="methods">
                ${methods.map(
                  (method) =>
                    html`<label
                      ><input
                        type="radio"
                        name="method"
                        value=${method}
                        .checked=${values.method === method}
                        ?disabled=${busy}
                        @change=${v.onMethodChange}
                      />${method === 'credit' ? m.credit : m.debit}</label
                    >`,
                )}
              </div>
            </fieldset>`
          : nothing
      }
      <ul class="brands" aria-label=${m.acceptedBrands}>
        ${CARD_BRANDS.map(
          (b) =>
            html`<li class=${v.brand && v.brand !== b ? 'off' : ''}>${mark(b, brandName(b))}</li>`,
        )}
      </ul>
      ${field(v, 'cardNumber', busy)} ${field(v, 'cardholderName', busy)}
      <div class="row">${field(v, 'expiry', busy)} ${field(v, 'securityCode', busy)}</div>
      ${field(v, 'document', busy)}
      ${
        showInstallments && session
          ? html`<div class="field">
              <label for="installments">${m.installments}</label>
              <select
                id="installments"
                name="installments"
                ?disabled=${busy}
                @change=${v.onInstallmentsChange}
              >
                ${installmentOptions(amount, session.maxInstallments).map(
                  (o) =>
                    html`<option value=${o.count} ?selected=${o.count === values.installments}>
                      ${installmentText(m, o, amount)}
                    </option>`,
                )}
              </select>
            </div>`
          : nothing
      }
      ${
        v.hideButton
          ? nothing
          : html`${terms ? html`<p class="hint" id="consent">${terms.consent}</p>` : nothing}<button
                type="submit"
                data-testid="pay"
                ?disabled=${busy || waiting}
              >
                ${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${label}
              </button>`
      }
    </form>`;
}

/**
 * What the BFF's frame page hands the form in a JSON data block (never executed): the texts in
 * the shopper's language (with each field's error texts by code), the styles, the brands' SVG
 * symbols and their table — static text and data kept out of the frame bundle's budget
 * (server/bff/pages/frame-data.ts builds it).
 */
import type { BrandTable } from '../card/brand-table';
import type { Messages } from '../i18n/messages';
import type { FieldErrorTexts } from './field-errors';

export interface FrameData {
  messages: Messages;
  /** Each field's error texts by code (./field-errors.ts, built from `messages`). */
  fieldErrors: FieldErrorTexts;
  /** The form's stylesheet (widget/frame/card-form.styles.ts). */
  css: string;
  /** The brands' marks: `<symbol id="visa">`… for one hidden `<svg>` of the form. */
  sprite: string;
  /** The brands' prefixes, lengths and names (widget/card/brand-table.ts). */
  brands: BrandTable;
}

let data: FrameData | undefined;

export function frameData(): FrameData {
  data ??= JSON.parse(
    document.getElementById('card-form-data')?.textContent ?? 'null',
  ) as FrameData;
  return data;
}

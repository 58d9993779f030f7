/**
 * The data block of the frame page: what `<card-form>` needs besides its code — the texts of
 * the shopper's language (and each field's error texts by code), its stylesheet, the brands'
 * SVG symbols and their table (prefixes, lengths, names). Static data served with the page
 * keeps the frame bundle within its budget (issue 11 §4).
 */
import { BRAND_TABLE } from '../../../widget/card/brand-table';
import { CARD_FORM_CSS } from '../../../widget/frame/card-form.styles';
import { fieldErrorTexts } from '../../../widget/frame/field-errors';
import type { FrameData } from '../../../widget/frame/page-data';
import { messagesFor } from '../../../widget/i18n';
import { BRAND_SYMBOLS } from './brand-sprite';
import type { Locale } from './html';

/** Whitespace around CSS punctuation and at line starts carries no meaning. */
export function squeezeCss(css: string): string {
  return css
    .replace(/\s+/g, ' ')
    .replace(/\s*([{};,>])\s*/g, '$1')
    .trim();
}

const CSS = squeezeCss(CARD_FORM_CSS);

export function frameData(locale: Locale): FrameData {
  const messages = messagesFor(locale);
  return {
    messages,
    fieldErrors: fieldErrorTexts(messages),
    css: CSS,
    sprite: BRAND_SYMBOLS,
    brands: BRAND_TABLE,
  };
}

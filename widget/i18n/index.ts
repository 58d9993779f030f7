import type { Locale } from '../protocol/constants';
import { en } from './en';
import type { Messages } from './messages';
import { ptBR } from './pt-br';

export type { Messages, Plural } from './messages';
export { fmt, plural } from './messages';

/**
 * The texts of a locale. The frame does not import this (it would bundle every language): the
 * BFF writes the locale's texts into the frame page.
 */
export function messagesFor(locale: Locale): Messages {
  return locale === 'en' ? en : ptBR;
}

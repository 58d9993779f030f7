import type { Locale } from '../protocol/constants';
import { en } from './en';
import type { Messages } from './messages';
import { ptBR } from './pt-br';

export type { Messages } from './messages';

export function messagesFor(locale: Locale): Messages {
  return locale === 'en' ? en : ptBR;
}

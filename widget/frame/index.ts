/** Frame entry (served by the BFF as `/frame/card-form.js`): registers `<card-form>`. */
import { unsafeCSS } from 'lit';
import { CardForm } from './card-form';
import { frameData } from './page-data';

export { CardForm } from './card-form';

if (!customElements.get('card-form')) {
  // The styles come with the texts in the frame page (server/bff/pages/frame-data.ts).
  CardForm.styles = unsafeCSS(frameData().css);
  customElements.define('card-form', CardForm);
}

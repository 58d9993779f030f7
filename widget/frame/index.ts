/** Frame entry (served by the BFF as `/frame/card-form.js`): registers `<card-form>`. */
import { CardForm } from './card-form';

export { CardForm } from './card-form';

if (!customElements.get('card-form')) customElements.define('card-form', CardForm);

/**
 * The frame's side of the handshake: say hello to the parent, then accept exactly one `init`
 * — from the parent window, from the expected parent origin, for this frame's session — and
 * keep its port. The client secret arrives only this way.
 */
import type { InitMessage } from '../protocol/messages';
import { isInitMessage, PROTOCOL } from '../protocol/messages';
import { sessionIdFromSecret } from '../protocol/constants';
import { expectedParentOrigin } from '../protocol/origin';

export interface HostConnection {
  init: InitMessage;
  port: MessagePort;
}

export function connectToHost(
  sessionId: string,
  sessionOrigin: string | null,
  onConnect: (connection: HostConnection) => void,
): void {
  const parent = window.parent;
  const expected = expectedParentOrigin({
    sessionOrigin,
    ancestorOrigins: location.ancestorOrigins,
    referrer: document.referrer,
    param: new URLSearchParams(location.search).get('origin'),
  });
  if (parent === window || !expected) return;
  const onMessage = (event: MessageEvent): void => {
    if (event.source !== parent || event.origin !== expected) return;
    const data: unknown = event.data;
    const port = event.ports[0];
    if (!isInitMessage(data) || !port) return;
    if (sessionIdFromSecret(data.clientSecret) !== sessionId) return;
    window.removeEventListener('message', onMessage);
    onConnect({ init: data, port });
  };
  window.addEventListener('message', onMessage);
  parent.postMessage({ protocol: PROTOCOL, type: 'frame-hello' }, expected);
}

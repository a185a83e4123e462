// Passkeys in the page (docs/PROTOCOL.md, "Passkeys"): the server's ceremony options
// (binary fields as base64url) turned into what navigator.credentials.create()/get()
// take, and the browser's answer turned back into JSON for the server. The conversions
// are pure (unit-tested); `createPasskey`/`getPasskey` only call the browser.

/** @param {string} text base64url, without padding @returns {ArrayBuffer} */
export function fromBase64url(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

/** @param {ArrayBuffer | ArrayBufferView | null | undefined} data @returns {string} base64url, without padding */
export function toBase64url(data) {
  if (!data) return '';
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * @typedef {{ type: string, id: string, transports?: string[] }} CredentialRef
 * @param {CredentialRef[] | undefined} list
 */
const refs = (list) => (list ?? []).map((c) => ({ ...c, type: 'public-key', id: fromBase64url(c.id) }));

/**
 * The server's registration options (`{"publicKey": …}`) as create() takes them.
 * @param {any} options
 * @returns {CredentialCreationOptions}
 */
export function creationOptions(options) {
  const pk = options.publicKey;
  return {
    publicKey: {
      ...pk,
      challenge: fromBase64url(pk.challenge),
      user: { ...pk.user, id: fromBase64url(pk.user.id) },
      excludeCredentials: refs(pk.excludeCredentials),
    },
  };
}

/**
 * The server's sign-in options (`{"publicKey": …}`) as get() takes them.
 * @param {any} options
 * @returns {CredentialRequestOptions}
 */
export function requestOptions(options) {
  const pk = options.publicKey;
  return {
    publicKey: {
      ...pk,
      challenge: fromBase64url(pk.challenge),
      allowCredentials: refs(pk.allowCredentials),
    },
  };
}

/**
 * The browser's answer as JSON for the server (the shape of PublicKeyCredential.toJSON()).
 * @param {any} credential a PublicKeyCredential
 */
export function credentialJSON(credential) {
  const r = credential.response;
  const response = 'attestationObject' in r
    ? { attestationObject: toBase64url(r.attestationObject), clientDataJSON: toBase64url(r.clientDataJSON) }
    : {
      authenticatorData: toBase64url(r.authenticatorData),
      clientDataJSON: toBase64url(r.clientDataJSON),
      signature: toBase64url(r.signature),
      userHandle: r.userHandle ? toBase64url(r.userHandle) : undefined,
    };
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: typeof credential.getClientExtensionResults === 'function' ? credential.getClientExtensionResults() : {},
  };
}

/**
 * Whether this browser can use passkeys on this page (WebAuthn needs a secure context:
 * https, or http://localhost).
 * @param {any} win the window
 */
export function passkeysSupported(win) {
  return Boolean(win.isSecureContext && win.PublicKeyCredential && win.navigator?.credentials);
}

/**
 * The words' key for a failed create()/get(): the person cancelled (or it timed out),
 * the device already holds a passkey for the account, or something else.
 * @param {unknown} error
 */
export function browserErrorKey(error) {
  const name = error && typeof error === 'object' && 'name' in error ? String(error.name) : '';
  if (name === 'NotAllowedError' || name === 'AbortError') return 'account.passkey.cancelled';
  if (name === 'InvalidStateError') return 'account.passkey.exists';
  return 'account.passkey.failed';
}

/** @param {any} options the server's registration options */
export async function createPasskey(options) {
  return credentialJSON(await navigator.credentials.create(creationOptions(options)));
}

/** @param {any} options the server's sign-in options */
export async function getPasskey(options) {
  return credentialJSON(await navigator.credentials.get(requestOptions(options)));
}

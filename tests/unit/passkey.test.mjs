// The page's passkey conversions (static/js/passkey.js): base64url both ways, the
// server's options as the browser takes them, the browser's answers as the server reads
// them, the browser's refusals' words, and the words of the passkey refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserErrorKey, creationOptions, credentialJSON, fromBase64url, passkeysSupported, requestOptions, toBase64url } from '../../static/js/passkey.js';
import { errorText } from '../../static/js/account-logic.js';
import { accountTranslator } from '../../static/js/account-text.js';

const bytes = (/** @type {ArrayBuffer} */ b) => [...new Uint8Array(b)];

test('base64url goes both ways, without padding, with - and _', () => {
  for (const len of [0, 1, 2, 3, 4, 31, 32, 33]) {
    const data = Uint8Array.from({ length: len }, (_, i) => (i * 97 + 250) % 256);
    const text = toBase64url(data);
    assert.doesNotMatch(text, /[+/=]/);
    assert.deepEqual(bytes(fromBase64url(text)), [...data]);
  }
  assert.equal(toBase64url(Uint8Array.of(0xfb, 0xff)), '-_8');
  assert.deepEqual(bytes(fromBase64url('-_8')), [0xfb, 0xff]);
  assert.equal(toBase64url(new Uint8Array([1, 2, 3, 4]).subarray(1, 3)), toBase64url(Uint8Array.of(2, 3)));
  assert.equal(toBase64url(null), '');
});

test("the server's options become the browser's, binary fields as bytes", () => {
  const created = creationOptions({
    publicKey: {
      rp: { id: 'localhost', name: 'Mill' },
      user: { id: 'AQID', name: 'ann', displayName: 'ann' },
      challenge: '_-8',
      timeout: 300000,
      excludeCredentials: [{ type: 'public-key', id: 'BAU' }],
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    },
  }).publicKey;
  assert.ok(created);
  assert.deepEqual(bytes(/** @type {ArrayBuffer} */ (created.user.id)), [1, 2, 3]);
  assert.deepEqual(bytes(/** @type {ArrayBuffer} */ (created.challenge)), [0xff, 0xef]);
  assert.deepEqual(bytes(/** @type {ArrayBuffer} */ (created.excludeCredentials?.[0].id)), [4, 5]);
  assert.equal(created.rp.id, 'localhost');
  assert.equal(created.authenticatorSelection?.residentKey, 'required');
  const asked = requestOptions({ publicKey: { challenge: 'AAE', rpId: 'localhost', allowCredentials: [], userVerification: 'required' } }).publicKey;
  assert.ok(asked);
  assert.deepEqual(bytes(/** @type {ArrayBuffer} */ (asked.challenge)), [0, 1]);
  assert.deepEqual(asked.allowCredentials, []);
  assert.equal(asked.rpId, 'localhost');
});

test("the browser's answers become JSON the server reads", () => {
  const buf = (/** @type {number[]} */ a) => Uint8Array.from(a).buffer;
  const made = credentialJSON({
    id: 'AQI', rawId: buf([1, 2]), type: 'public-key',
    response: { attestationObject: buf([3]), clientDataJSON: buf([4]) },
    getClientExtensionResults: () => ({ credProps: { rk: true } }),
  });
  assert.deepEqual(made, {
    id: 'AQI', rawId: 'AQI', type: 'public-key',
    response: { attestationObject: 'Aw', clientDataJSON: 'BA' },
    clientExtensionResults: { credProps: { rk: true } },
  });
  const used = credentialJSON({
    id: 'AQI', rawId: buf([1, 2]), type: 'public-key',
    response: { authenticatorData: buf([5]), clientDataJSON: buf([6]), signature: buf([7]), userHandle: buf([8]) },
  });
  assert.deepEqual(used.response, { authenticatorData: 'BQ', clientDataJSON: 'Bg', signature: 'Bw', userHandle: 'CA' });
  assert.deepEqual(used.clientExtensionResults, {});
});

test('passkeys are offered only where the browser can use them', () => {
  const credentials = {};
  assert.equal(passkeysSupported({ isSecureContext: true, PublicKeyCredential: class {}, navigator: { credentials } }), true);
  assert.equal(passkeysSupported({ isSecureContext: false, PublicKeyCredential: class {}, navigator: { credentials } }), false);
  assert.equal(passkeysSupported({ isSecureContext: true, navigator: { credentials } }), false);
  assert.equal(passkeysSupported({ isSecureContext: true, PublicKeyCredential: class {}, navigator: {} }), false);
});

test("the browser's refusals and the server's passkey codes have words in both languages", () => {
  assert.equal(browserErrorKey(new DOMException('x', 'NotAllowedError')), 'account.passkey.cancelled');
  assert.equal(browserErrorKey(new DOMException('x', 'InvalidStateError')), 'account.passkey.exists');
  assert.equal(browserErrorKey(new Error('x')), 'account.passkey.failed');
  assert.equal(browserErrorKey(undefined), 'account.passkey.failed');
  for (const lang of /** @type {const} */ (['en', 'ru'])) {
    const t = accountTranslator(lang);
    for (const key of ['account.passkey.cancelled', 'account.passkey.exists', 'account.passkey.failed']) assert.notEqual(t(key), key);
    for (const code of ['passkey-unavailable', 'ceremony-expired', 'passkey-refused']) {
      const { key } = errorText(code);
      assert.equal(key, `account.error.${code}`);
      assert.notEqual(t(key), key, `${lang} ${code}`);
    }
  }
});

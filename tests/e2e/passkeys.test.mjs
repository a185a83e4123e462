// Passkeys in a real browser against the real server, with Chromium's virtual
// authenticator (DevTools' WebAuthn domain: a platform authenticator that keeps
// discoverable credentials and verifies its user): sign up with a name and a passkey,
// sign out, sign in with the passkey alone; a password account adds a passkey and signs
// in with it; a cancelled prompt is told; at 127.0.0.1 (no RP id there) the page says
// where passkeys work; and a browser without WebAuthn keeps the password forms. The
// page is opened at http://localhost:PORT, the server's default relying party.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, openPage, DESKTOP, PHONE, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** The page's own errors (a refused request's console line is expected). */
const ownErrors = (page) => page.errors.filter((e) => !/Failed to load resource/.test(e));

/** The server's address under the name passkeys are set up for. */
const localhost = () => env.server.url.replace('127.0.0.1', 'localhost');

/**
 * A page with a virtual authenticator of its own (as a phone's or laptop's built-in
 * one); `verified` false makes its user verification fail.
 */
async function withAuthenticator(page, { verified = true } = {}) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: verified,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

async function openAccount(context, base = localhost()) {
  const page = await openPage(context);
  await page.goto(`${base}/account`, { timeout: 30_000 });
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

test('sign up with a passkey, sign out, and sign in with the passkey alone', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const page = await openAccount(context);
  const { cdp, authenticatorId } = await withAuthenticator(page);
  // Passkey first, the password after it.
  assert.equal(await page.locator('#passkey-sign-in').isVisible(), true);
  assert.equal(await page.locator('#passkey-sign-up').isVisible(), true);
  assert.equal(await page.locator('#passkey-none').isVisible(), false);
  const order = await page.evaluate(() => {
    const form = document.getElementById('sign-in-form');
    const buttons = [...form.querySelectorAll('button')].map((b) => b.id || b.type);
    return buttons;
  });
  assert.deepEqual(order, ['passkey-sign-in', 'submit']);
  assert.deepEqual(await axeSerious(page), []);

  // A name is needed first: the browser says so, and nothing is asked of the authenticator.
  await page.click('#passkey-sign-up');
  assert.equal(await page.locator('#sign-up-name:invalid').count(), 1);
  await page.fill('#sign-up-name', 'Pia_passkey');
  await page.click('#passkey-sign-up');
  await page.locator('#signed-in:not([hidden])').waitFor();
  assert.match(await page.locator('#account-status').innerText(), /Welcome, Pia_passkey/);
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(credentials.length, 1);
  assert.equal(credentials[0].isResidentCredential, true);
  assert.equal(credentials[0].rpId, 'localhost');
  const [first] = await context.cookies();
  assert.equal(first.name, 'mill_session');
  assert.equal(first.httpOnly, true);
  assert.deepEqual(await axeSerious(page), []);

  await page.click('#sign-out');
  await page.locator('#signed-out:not([hidden])').waitFor();
  await page.click('#passkey-sign-in');
  await page.locator('#signed-in:not([hidden])').waitFor();
  assert.match(await page.locator('#account-status').innerText(), /Welcome back, Pia_passkey/);
  assert.match(await page.locator('#signed-in-as').innerText(), /Signed in as Pia_passkey/);
  const [second] = await context.cookies();
  assert.notEqual(second.value, first.value);
  // The authenticator counted the signature.
  const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(after.credentials[0].signCount >= 1, true);
  // The session is real: the server knows the name.
  const me = await page.evaluate(async () => (await fetch('/api/me')).json());
  assert.equal(me.name, 'Pia_passkey');
  assert.deepEqual(ownErrors(page), []);
  await context.close();
});

test('a password account adds a passkey and signs in with it; a failed prompt is told', async () => {
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'ru-RU' });
  const page = await openAccount(context);
  const { cdp, authenticatorId } = await withAuthenticator(page);
  assert.equal(await page.locator('#passkey-sign-in').innerText(), 'Войти с ключом доступа');
  await page.fill('#sign-up-name', 'Rem_pw');
  await page.fill('#sign-up-password', 'a long enough passphrase');
  await page.click('#sign-up-form button[type="submit"]');
  await page.locator('#signed-in:not([hidden])').waitFor();
  assert.equal(await page.locator('#passkey-add').innerText(), 'Добавить ключ доступа');
  await page.click('#passkey-add');
  await page.locator('#account-status:not([data-tone="error"])', { hasText: 'Ключ доступа добавлен' }).waitFor();
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(credentials.length, 1);
  // The same device again: it holds one already (the server excluded it).
  await page.click('#passkey-add');
  await page.locator('#account-status[data-tone="error"]').waitFor();
  assert.match(await page.locator('#account-status').innerText(), /уже есть ключ доступа/);
  assert.deepEqual(await axeSerious(page), []);

  await page.click('#sign-out');
  await page.locator('#signed-out:not([hidden])').waitFor();
  await page.click('#passkey-sign-in');
  await page.locator('#signed-in:not([hidden])').waitFor();
  assert.match(await page.locator('#signed-in-as').innerText(), /Rem_pw/);

  // An authenticator that cannot verify its user: the prompt fails and the page says so.
  await page.click('#sign-out');
  await page.locator('#signed-out:not([hidden])').waitFor();
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
  await page.click('#passkey-sign-in');
  await page.locator('#account-status[data-tone="error"]').waitFor();
  assert.equal(await page.locator('#signed-out').isVisible(), true);
  assert.equal(await page.locator('#passkey-sign-in').isEnabled(), true);
  assert.deepEqual(ownErrors(page), []);
  await context.close();
});

test('at 127.0.0.1 the page says where passkeys work, and the password still signs in', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const page = await openAccount(context, env.server.url);
  await withAuthenticator(page);
  await page.click('#passkey-sign-in');
  await page.locator('#account-status[data-tone="error"]').waitFor();
  assert.match(await page.locator('#account-status').innerText(), /another address/);
  await page.fill('#sign-up-name', 'Ivo_ip');
  await page.fill('#sign-up-password', 'a long enough passphrase');
  await page.click('#sign-up-form button[type="submit"]');
  await page.locator('#signed-in:not([hidden])').waitFor();
  await context.close();
});

test('a browser without passkeys keeps the password forms', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  await context.addInitScript(() => {
    delete window.PublicKeyCredential;
  });
  const page = await openAccount(context);
  assert.equal(await page.locator('#passkey-sign-in').isVisible(), false);
  assert.equal(await page.locator('#passkey-sign-up').isVisible(), false);
  assert.equal(await page.locator('#passkey-none').isVisible(), true);
  assert.equal(await page.locator('#sign-in-form button[type="submit"]').isVisible(), true);
  assert.deepEqual(await axeSerious(page), []);
  await page.fill('#sign-up-name', 'Nora_nopk');
  await page.fill('#sign-up-password', 'a long enough passphrase');
  await page.click('#sign-up-form button[type="submit"]');
  await page.locator('#signed-in:not([hidden])').waitFor();
  assert.equal(await page.locator('#passkey-add').isVisible(), false);
  assert.deepEqual(ownErrors(page), []);
  await context.close();
});

// The account pages in a real browser against the real server: sign-up by the form, the
// session kept across a reload, the profile /@/{name}, a wrong password's words, sign
// out, Russian, the phone width and axe.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, openPage, PHONE, DESKTOP, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** Errors of the page's own code (a refused request's status line in the console is expected). */
const ownErrors = (page) => page.errors.filter((e) => !/Failed to load resource/.test(e));

async function openAccount(context) {
  const page = await openPage(context);
  await page.goto(`${env.server.url}/account`, { timeout: 30_000 });
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

test('sign up, stay signed in, see the profile, sign out, and a wrong password is told', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const page = await openAccount(context);
  assert.equal(await page.locator('#signed-out').isVisible(), true);
  assert.deepEqual(await axeSerious(page), []);
  await page.fill('#sign-up-name', 'Quinn_e2e');
  await page.fill('#sign-up-password', 'a fine passphrase');
  await page.click('#sign-up-form button[type="submit"]');
  await page.locator('#signed-in:not([hidden])').waitFor();
  assert.match(await page.locator('#account-status').innerText(), /Welcome, Quinn_e2e/);
  assert.match(await page.locator('#signed-in-as').innerText(), /Signed in as Quinn_e2e/);
  // The cookie is the page's session, out of the page's reach.
  assert.equal(await page.evaluate(() => document.cookie), '');
  const [cookie] = await context.cookies();
  assert.equal(cookie.name, 'mill_session');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Lax');

  await page.reload();
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await page.locator('#signed-in').isVisible(), true);
  assert.deepEqual(await axeSerious(page), []);

  await page.click('#my-profile');
  await page.waitForURL(/\/@\/Quinn_e2e$/);
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await page.locator('#profile-name').innerText(), 'Quinn_e2e');
  assert.equal(await page.locator('#profile-none').isVisible(), true);
  assert.deepEqual(await axeSerious(page), []);
  assert.deepEqual(ownErrors(page), []);

  const profile = await page.evaluate(async () => (await fetch('/api/players/nobody_here')).status);
  assert.equal(profile, 404);
  await page.goto(`${env.server.url}/@/nobody_here`);
  await page.locator('body[data-ready="true"]').waitFor();
  assert.match(await page.locator('#profile-status').innerText(), /no player/);

  const account = await openAccount(context);
  await account.click('#sign-out');
  await account.locator('#signed-out:not([hidden])').waitFor();
  assert.match(await account.locator('#account-status').innerText(), /Signed out/);
  await account.fill('#sign-in-name', 'quinn_e2e');
  await account.fill('#sign-in-password', 'not the passphrase');
  await account.click('#sign-in-form button[type="submit"]');
  await account.locator('#account-status[data-tone="error"]').waitFor();
  assert.match(await account.locator('#account-status').innerText(), /No account has this name and password/);
  await account.fill('#sign-in-password', 'a fine passphrase');
  await account.click('#sign-in-form button[type="submit"]');
  await account.locator('#signed-in:not([hidden])').waitFor();
  assert.match(await account.locator('#account-status').innerText(), /Welcome back, Quinn_e2e/);
  assert.deepEqual(ownErrors(account), []);
  await context.close();
});

test('the account page in Russian on a phone', async () => {
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'ru-RU' });
  const page = await openAccount(context);
  assert.equal(await page.locator('h1').innerText(), 'Ваша учётная запись');
  assert.equal(await page.locator('#sign-in-form button[type="submit"]').innerText(), 'Войти');
  // Nothing wider than the screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${overflow}px too wide`);
  await page.fill('#sign-up-name', 'ab');
  await page.fill('#sign-up-password', 'password');
  // The browser's own check stops a name that is too short; the server's words answer the rest.
  await page.fill('#sign-up-name', 'rita_e2e');
  await page.click('#sign-up-form button[type="submit"]');
  await page.locator('#account-status[data-tone="error"]').waitFor();
  assert.match(await page.locator('#account-status').innerText(), /пароль надёжнее/);
  assert.deepEqual(await axeSerious(page), []);
  await context.close();
});

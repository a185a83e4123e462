// What the player cards, the lobby and the header show of accounts
// (static/js/cards-logic.js): names, ratings as the profile writes them, a rated round's
// change, who /api/me says is signed in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shownRating } from '../../static/js/account-logic.js';
import { changeText, playerCard, ratingText, seekerText, signedInName } from '../../static/js/cards-logic.js';

test('a rating is written as the profile writes it: a question mark while provisional', () => {
  assert.equal(ratingText(1532, true), '1532?');
  assert.equal(ratingText(1532, false), '1532');
  assert.equal(ratingText(1611.6, false), '1612');
  for (const [rating, provisional] of [[1500, true], [1712, false]]) {
    assert.equal(ratingText(rating, provisional), shownRating({ rules: 'nine', speed: 'blitz', rating, rd: 0, games: 0, provisional }));
  }
});

test('a change is signed: plus, a true minus sign, and plus-minus for none', () => {
  assert.equal(changeText(12), '+12');
  assert.equal(changeText(-8), '\u22128');
  assert.equal(changeText(0), '\u00b10');
  assert.equal(changeText(4.6), '+5');
});

test('an account seat has a card with its profile link; an anonymous seat has none', () => {
  assert.deepEqual(playerCard({ name: 'ann', rating: 1532, provisional: true }), {
    name: 'ann', profile: '/@/ann', rating: '1532?', change: null,
  });
  assert.deepEqual(playerCard({ name: 'Bob_2', rating: 1488, provisional: false, change: -12 }), {
    name: 'Bob_2', profile: '/@/Bob_2', rating: '1488', change: '\u221212',
  });
  // An untimed room: a name, no rating.
  assert.deepEqual(playerCard({ name: 'ann' }), { name: 'ann', profile: '/@/ann', rating: null, change: null });
  assert.equal(playerCard(undefined), null);
  assert.equal(playerCard({}), null);
  // Nothing that is not a name the server gives ends up in a link.
  assert.equal(playerCard({ name: '<img src=x>' }), null);
  assert.equal(playerCard({ name: '../x' }), null);
});

test('a signed-in seeker is named with the rating; an anonymous one stays anonymous', () => {
  assert.equal(seekerText({ name: 'ann', rating: 1532, provisional: true }), 'ann 1532?');
  assert.equal(seekerText({ name: 'ann' }), 'ann');
  assert.equal(seekerText({}), null);
  assert.equal(seekerText(null), null);
});

test('who is signed in: the name of a 200, else nobody', () => {
  assert.equal(signedInName(200, { name: 'ann', ratings: {} }), 'ann');
  assert.equal(signedInName(401, { code: 'sign-in-required' }), null);
  assert.equal(signedInName(200, null), null);
  assert.equal(signedInName(200, { name: null }), null);
  assert.equal(signedInName(200, { name: 5 }), null);
  assert.equal(signedInName(500, { name: 'ann' }), null);
});

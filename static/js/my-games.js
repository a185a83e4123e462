// "Your games in progress" on the start screen: a signed-in player's rooms whose round
// goes on (my-games-logic.js), each a link to /r/{room}, where the page takes the seat by
// the account (online.js). Read each time the start screen opens; hidden when there are
// none (and for everyone not signed in).

import { controlText } from './clock.js';
import { $ } from './dom.js';
import { fetchMyGames } from './my-games-logic.js';
import { describeRules } from './variant.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./my-games-logic.js').MyGame} MyGame */

/** @type {MyGame[]} */
let games = [];

/** Reads the games again, then shows them. @param {App} app */
export async function loadMyGames(app) {
  games = await fetchMyGames();
  viewMyGames(app);
}

/** Shows the games read last (in the page's language). @param {App} app */
export function viewMyGames(app) {
  const { t } = app.page;
  const box = $('my-games');
  box.hidden = games.length === 0;
  const list = $('my-games-list');
  list.replaceChildren(
    ...games.map((g) => {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = `/r/${g.room}`;
      const { key, params } = controlText(g.clock);
      const words = {
        game: describeRules(g.rules, t),
        clock: t(key, params),
        side: t(`color.${g.seat}`),
        opponent: g.opponent ?? t('myGames.anonymous'),
      };
      a.textContent = t(g.started ? 'myGames.game' : 'myGames.waiting', words);
      li.append(a);
      if (g.rated) {
        const rated = document.createElement('span');
        rated.className = 'lobby-since';
        rated.textContent = ` ${t('myGames.rated')}`;
        li.append(rated);
      }
      return li;
    }),
  );
}

// Owns the rules page's words in English and Russian. Pure: no DOM. Shared game words
// (colours, the status line, results) come from i18n.js through the same translator, so
// the boards on this page speak exactly like the game.
//
// Keys ending in `.html` hold trusted markup written here (paragraphs, lists, <code> for
// points); every other key is plain text. `{name}` is a parameter.

import { translator } from './i18n.js';

const en = {
  'doc.title': 'How to play Mill — rules with live boards',
  'doc.description': 'The rules of Mill (Nine Men’s Morris) with live boards you can play on: placing, moving, flying, mills and removals, how a game is won, lost or drawn.',
  'nav.play': 'Play',
  'nav.toc': 'On this page',
  'hero.kicker': 'Rules',
  'hero.title': 'How to play Mill',
  'hero.lead':
    'Nine pieces each, twenty-four points, one aim: line up three and take your opponent’s pieces. Every board on this page is live — the same rules engine as the game answers your clicks.',
  'hero.play': 'Start a game',
  'nav.skip': 'Skip to the rules',

  // Generic diagram controls and notes.
  'diagram.reset': 'Reset',
  'diagram.resetLabel': 'Reset this board to its starting position',
  'diagram.tabs': 'Positions',
  'diagram.loading': 'Loading the board…',
  'diagram.error': 'This board could not start: {message}',
  'diagram.refused': 'The rules refused that: {message}',
  'note.mill.dark': '{side} closed a mill, so the turn is not over yet: one Dark piece must be removed first. Offered: {offered}.',
  'note.mill.light': '{side} closed a mill, so the turn is not over yet: one Light piece must be removed first. Offered: {offered}.',
  'note.protected': 'Protected in a mill: {protected}.',
  'note.passed': 'The removal completed the turn: it is {next}’s turn now.',
  'note.quiet': 'No mill, so the turn passed straight to {next}.',
  'summary.placing': '{side} can place on {n} empty points.',
  'summary.moving': '{side} — pieces that can move: {n}, moves in all: {moves}. Pick one to see where it may go.',
  'summary.flying': '{side} can fly: any of {n} pieces to any of {free} empty points.',
  'summary.removing': '{side} must remove one piece — choices: {n}.',
  'summary.over': 'The game is over.',

  'tab.start': 'Start',
  'tab.placing': 'Placing',
  'tab.moving': 'Moving',
  'tab.flying': 'Flying',

  // 1. The board and the three phases.
  'board.title': 'The board and the three phases',
  'board.body.html': `
    <p>The board is three squares, one inside another, joined by four lines through the middles of their sides. Pieces stand on the <b>24 points</b> where the lines meet or turn, never inside the squares. Points are named like chess squares: files <code>a</code> to <code>g</code> from the left, ranks <code>1</code> to <code>7</code> from the bottom.</p>
    <p>Two points are <b>neighbours</b> when a single segment joins them with no point in between. A <b>mill</b> is three of your pieces on one line: the twelve sides of the squares and the four short lines across count — 16 lines in all. There are no diagonals.</p>
    <p>Light moves first; each side has nine pieces. The game passes through three phases:</p>
    <ol class="phase-list">
      <li><b>Placing.</b> In turn, each side puts one piece from hand on any empty point, until both have placed all nine. Pieces already on the board stay put.</li>
      <li><b>Moving.</b> Then each turn is a step: one of your pieces slides along a line to a neighbouring empty point. Nothing jumps.</li>
      <li><b>Flying.</b> Once placing is over, a side left with exactly three pieces may move any of them to any empty point.</li>
    </ol>`,
  'board.caption':
    'The start: every point is highlighted because Light may place anywhere. Click or tap points (or use the arrow keys and Enter) — the two sides take turns.',

  // 2. The removal that completes the turn.
  'removal.title': 'A mill, then a removal — one turn',
  'removal.body.html': `
    <p>When the piece you have just placed or moved completes a mill, your turn is <b>not over</b>: you must take one of your opponent’s pieces off the board, and only then does your opponent play. You cannot close a line and hand over the turn.</p>
    <p>The record writes it as one turn: the placement or move, then <code>x</code> and the point emptied, as in <code>f4-g4xb6</code>. A removed piece never comes back.</p>
    <p>No new mill, no removal: the turn passes at once. A mill that simply stays on the board earns nothing more — but you may open it and close it again later, and every new closing earns a removal under the same rules.</p>`,
  'removal.caption': 'Moving, Light to move. Slide f4 to g4 to close the g-file: the board asks for a removal first and only then gives Dark the turn.',

  // 3. Protected pieces.
  'protected.title': 'Protected pieces',
  'protected.body.html': `
    <p>You may not take just any piece. A piece standing in a mill is <b>protected</b> as long as its owner has at least one piece outside every mill: the removal must be one of those.</p>
    <p>Only when <b>all</b> of the opponent’s pieces on the board stand in mills may one of them be taken from a mill. Pieces still in hand can never be removed.</p>`,
  'protected.tab.outside': 'd7 outside',
  'protected.tab.all': 'All in mills',
  'protected.caption.outside': 'Light places on g7 and closes the g-file. Dark’s b2, b4 and b6 make a mill, so the only piece offered is d7.',
  'protected.caption.all': 'Without d7, every Dark piece stands in the mill — so after g7 any of them may be taken.',

  // 4. Flying.
  'three.title': "Three Men's Morris",
  'three.body.html': `
    <p>The smallest game of the family, on nine points: the three rows, the three columns and both diagonals through the centre are the lines. Each side has <b>three pieces</b>. Place them in turn, then move one at a time to a neighbouring empty point along a line; nobody flies.</p>
    <p><b>The first line wins at once</b>, while placing or moving: there is no removal. Everything else is as in Nine Men's Morris. Choose it on the start screen under <i>Game</i>.</p>`,
  'three.caption.placing': 'Light has one piece left to place: g7 completes the top row and wins at once.',
  'three.caption.moving': 'Placing is over. a4-d4 makes the diagonal a1, d4, g7: Light wins.',
  'six.title': "Six Men's Morris",
  'six.body.html': `
    <p>Two squares instead of three, sixteen points, and <b>six pieces</b> each. The squares are joined at the middles of their sides (a4-b4, d1-d2, g4-f4, d7-d6), but those joins are only paths: the <b>mills are the eight sides</b> of the squares.</p>
    <p>Removals, protected pieces, flying with three and losing below three are as in Nine Men's Morris.</p>`,
  'six.caption': 'The empty Six board: place a piece and play both sides to try it.',
  'twelve.title': "Twelve Men's Morris",
  'twelve.body.html': `
    <p>The Nine board with the <b>four diagonals</b> a1-b2-c3, a7-b6-c5, g7-f6-e5 and g1-f2-e3 added, both as paths and as mills; <b>twelve pieces</b> each, and a side <b>flies with four</b>.</p>
    <p>Twenty-four pieces can fill the board: if placing ends with every point taken, the game is <b>drawn</b> (nobody could move anyway).</p>
    <p>On any board with removals the start screen's <i>Rule options</i> can make a piece that closes two mills remove two pieces (protection is judged again before the second), let mill pieces be taken like any other, and set when a side flies.</p>`,
  'twelve.tab.full': 'Full board',
  'twelve.caption.diagonal': 'a1 and b2 are Light\'s: c3 closes the diagonal mill and removes a Dark piece.',
  'twelve.caption.full': 'Two points left. Unless a placement closes a mill, the board fills and the game is drawn.',
  'flying.title': 'Flying at exactly three',
  'flying.body.html': `
    <p>After placing, a side with <b>exactly three</b> pieces on the board flies: on its turn it picks up any of its pieces and puts it on any empty point, however far, over whatever stands between.</p>
    <p>Only that side flies. An opponent with four or more pieces keeps stepping to neighbouring points; when both are down to three, both fly. Three pieces left <em>in hand</em> during placing give no right to fly.</p>`,
  'flying.tab.light': 'Light flies',
  'flying.tab.dark': 'Dark steps',
  'flying.caption.light': 'Light has three pieces: pick any of them and every empty point lights up. Flying f2 to a4 closes the a-file.',
  'flying.caption.dark': 'The same board with Dark to move: five pieces, so Dark still steps along the lines.',

  // 5. Losing.
  'losing.title': 'Two ways to lose',
  'losing.body.html': `
    <p>Both are checked after every complete turn, the removal included:</p>
    <ul>
      <li><b>Too few pieces.</b> A side whose pieces on the board and in hand add up to fewer than three loses: it can never make a mill again.</li>
      <li><b>No legal move.</b> After placing, a side that must move but has every piece blocked loses — however many pieces it has. A flying side can always move, so a blockade only works against four or more.</li>
    </ul>
    <p>So counting mills is not enough to judge a position: keep both conditions in mind.</p>`,
  'losing.tab.pieces': 'Down to two',
  'losing.tab.blocked': 'Blockade',
  'losing.caption.pieces': 'Dark has three pieces. Move g4 to g1 to close a mill, remove any Dark piece, and Dark is down to two: Light wins.',
  'losing.caption.blocked': 'Dark’s four pieces are nearly shut in. Move d1 to a1: Dark then has no legal move, and Light wins.',

  // 6. Draws.
  'draws.title': 'Draws',
  'draws.body.html': `
    <ul>
      <li><b>Threefold repetition.</b> When the same position — the same pieces on the same points, the same side to move, the same pieces in hand — occurs for the third time, the game is drawn. Positions are compared between turns only, never halfway through one.</li>
      <li><b>100 turns without a removal.</b> After placing, 100 turns in a row (50 by each side) without any removal draw the game. Every removal starts the count again.</li>
    </ul>
    <p>In a game with a friend online you can also offer a draw; it ends the game when your opponent accepts.</p>`,
  'draws.tab.hundred': '100 turns',
  'draws.tab.threefold': 'Repetition',
  'draws.caption.hundred': '99 turns without a removal have been played. Any move that does not close a mill is the hundredth — try one.',
  'draws.caption.threefold': 'Shuffle: Light a1–a4, Dark g7–g4, then both back. Do it twice and this position appears for the third time: a draw.',

  // 7. Misconceptions.
  'myths.title': 'Common misconceptions',
  'myths.body.html': `
    <dl class="myths">
      <div class="myth"><dt>“After a mill I may take any piece, even one from a mill.”</dt>
      <dd>Pieces in a mill are protected while the opponent has any piece outside mills. Take one of those first.</dd></div>
      <div class="myth"><dt>“Closing two mills at once takes two pieces.”</dt>
      <dd>One placement or move removes one piece here, however many lines it closes.</dd></div>
      <div class="myth"><dt>“I can close the mill now and remove later.”</dt>
      <dd>The removal is part of the same turn. Your opponent does not move until it is done.</dd></div>
      <div class="myth"><dt>“A mill left standing keeps paying.”</dt>
      <dd>Only a new closing counts. Open the mill and close it again to earn another removal.</dd></div>
      <div class="myth"><dt>“Three pieces left in my hand: I can fly.”</dt>
      <dd>Flying needs placing to be over and exactly three pieces on the board.</dd></div>
      <div class="myth"><dt>“With more pieces I cannot lose.”</dt>
      <dd>A side that cannot move loses, whatever it has left.</dd></div>
    </dl>`,

  // 8. The worked position.
  'worked.title': 'Worked position: close the mill, then finish the turn',
  'worked.body.html': `
    <p>Placing is under way and it is Light’s turn. Light has pieces on <code>a1</code> and <code>d1</code>; <code>g1</code> is empty. Dark’s piece on <code>d2</code> stands in no mill, while Dark’s <code>b6</code>, <code>d6</code> and <code>f6</code> form one. Nothing else bears on the bottom side of the outer square.</p>
    <p class="question">Light places on <code>g1</code>. Does the turn pass to Dark?</p>
    <p>Try it on the board first: place on <code>g1</code> and see what the board asks for.</p>`,
  'worked.caption': 'Light to move, placing. Place on g1.',
  'worked.note.mill': 'a1, d1 and g1 make a mill, so Light is not done: the board wants a removal, and offers only {offered}. Protected in a mill: {protected}.',
  'worked.note.passed': 'With the removal made, Light’s turn is complete and Dark may now place.',
  'worked.show': 'Show answer',
  'worked.hide': 'Hide answer',
  'worked.answer.html': `
    <p><b>No, not yet.</b> <code>a1</code>, <code>d1</code>, <code>g1</code> is a mill, so Light must first remove a Dark piece. The only one allowed is <code>d2</code>: <code>b6</code>, <code>d6</code> and <code>f6</code> are protected by their mill while <code>d2</code> stands outside every mill. After the removal the turn passes and Dark places. The whole turn is written <code>g1xd2</code>.</p>
    <p>What decides is the phase and whether the turn is complete, not a count of pieces. Even when two mills are opened and closed by turns to make threat after threat, each removal is checked on its own.</p>
    <p class="fine">A teaching position, not a recorded game, and not a claim that g1 is the best move.</p>`,

  // 9. Practice.
  'practice.title': 'Practice',
  'practice.lead': 'Three short exercises. The boards are live: the rules engine answers every click, and “Reset” puts a board back.',
  'checkYourself': 'Check yourself',
  'ex1.title': '1. Placing, moving, flying',
  'ex1.body.html': `<p>One board, three phases. Switch between them and compare what lights up: where Light may place, which pieces may move and where, and where a flying piece may land.</p>`,
  'ex1.check': 'Only a side with exactly three pieces after placing flies. In the flying position Dark, with five pieces, still steps.',
  'ex1.caption.placing': 'Placing: every empty point is a legal placement.',
  'ex1.caption.moving': 'Moving: only pieces with an empty neighbour may move. a1 and b4 are stuck.',
  'ex1.caption.flying': 'Flying: Light has three pieces, so each may go to any empty point.',
  'ex2.title': '2. Two mills with one piece',
  'ex2.body.html': `<p>Light has two lines of two, <code>a1</code>–<code>d1</code> and <code>g4</code>–<code>g7</code>, which share the empty point <code>g1</code>. Place there: both mills close, yet Light removes one piece and the turn passes.</p>`,
  'ex2.check': 'In a game Dark moves between your placements. Would Dark leave g1 empty for you? A shared point is a double threat only until the opponent takes it.',
  'ex2.caption': 'Light to move, placing. Place on g1.',
  'ex2.tab.light': 'Light to move',
  'ex2.tab.dark': 'Dark to move',
  'ex2.caption.dark': 'The same lines one placement earlier, with Dark to move: a Dark piece on g1 spoils both threats at once.',
  'ex2.note.mill': 'Two mills with one piece — and still one removal. Offered: {offered}.',
  'ex2.note.passed': 'One piece removed, and the turn has passed to Dark: two mills, one removal.',
  'ex3.title': '3. Blockade',
  'ex3.body.html': `<p>Light has just played <code>f6</code>–<code>f4</code>. Now it is Dark’s turn. <b>Which Dark pieces can move?</b> Select them on the board or in the list, then check your answer.</p>`,
  'ex3.check': 'Keep both ways to lose in mind: if none of Dark’s pieces could move, Dark would lose right now, whatever the count of pieces.',
  'ex3.caption': 'Dark to move after f6–f4. Pick the Dark pieces that can move.',
  'ex3.listLabel': 'Dark pieces that can move',
  'ex3.status': 'Dark to move: which pieces can?',
  'ex3.submit': 'Check',
  'ex3.clear': 'Clear',
  'ex3.right': 'Right: {pieces} can move, and nothing else. The board is live now — try Dark’s moves.',
  'ex3.wrongExtra': 'Not quite: at least one piece you chose has no empty neighbour.',
  'ex3.wrongMissing': 'Not quite: a Dark piece that can move is missing from your list.',
  'ex3.pick': 'Select at least one piece.',
  'ex3.picked': 'Selected: {pieces}',
  'ex3.none': 'none',
  'ex3.point.picked': 'in your answer',
  'ex3.point.pickable': 'press Enter to add it to your answer',

  // 10. FAQ.
  'faq.title': 'Questions',
  'faq.items.html': `
    <details><summary>What do I pick at the start of my turn?</summary>
      <p>While placing, an empty point. While moving, one of your pieces, then a highlighted neighbouring point. While flying, one of your pieces, then any empty point. The highlights always show what is legal right now.</p></details>
    <details><summary>I closed a mill — why is it still my turn?</summary>
      <p>Because the removal belongs to your turn. Take one of the highlighted opponent pieces and the turn passes.</p></details>
    <details><summary>Can I take a piece out of my opponent’s mill?</summary>
      <p>Only when all of their pieces on the board stand in mills. While any piece stands outside, take one of those.</p></details>
    <details><summary>Do I fly when three pieces are left in my hand?</summary>
      <p>No. Flying starts only after placing is over, with exactly three pieces on the board. Until then the placing rules apply.</p></details>
    <details><summary>If I place on g1 in the worked position, can I hand the turn to Dark at once?</summary>
      <p>No: a1–d1–g1 is a mill, so you first remove a Dark piece that is allowed — d2, which stands in no mill. Only then does Dark play.</p></details>
    <details><summary>How does a game end in a draw?</summary>
      <p>By the same position occurring a third time, by 100 turns without a removal once placing is over, or — online — by agreement.</p></details>
    <details><summary>Can I play with the keyboard?</summary>
      <p>Yes. Tab to a board, move between points with the arrow keys, press Enter or Space to place, pick up, move or remove, and Escape to put a picked-up piece back.</p></details>`,

  // Closing.
  'cta.title': 'Rules clear? Time to play.',
  'cta.body': 'Give your first games a small aim — make one mill, or keep a piece free to move — rather than racing to win. Then look back over your turns and take one lesson into the next game.',
  'cta.button': 'Start a game',
  'footer.note': 'These are the rules this site plays: Nine Men’s Morris with flying at three pieces. The practice positions are for learning; they are not taken from recorded games.',
};

const ru = {
  'doc.title': 'Как играть в Мельницу — правила на живых досках',
  'doc.description': 'Правила Мельницы с досками, на которых можно ходить: расстановка, ходы, полёт, мельницы и взятия, победа, поражение и ничья.',
  'nav.play': 'Играть',
  'nav.toc': 'На этой странице',
  'hero.kicker': 'Правила',
  'hero.title': 'Как играть в Мельницу',
  'hero.lead':
    'У каждого девять фишек, на доске двадцать четыре точки, а цель одна: выстроить три в ряд и забирать фишки соперника. Все доски на этой странице живые — на ваши ходы отвечает тот же движок правил, что и в игре.',
  'hero.play': 'Начать партию',
  'nav.skip': 'Перейти к правилам',

  'diagram.reset': 'Сначала',
  'diagram.resetLabel': 'Сначала: вернуть доску в исходную позицию',
  'diagram.tabs': 'Позиции',
  'diagram.loading': 'Загружаем доску…',
  'diagram.error': 'Доска не запустилась: {message}',
  'diagram.refused': 'Правила этого не позволяют: {message}',
  'note.mill.dark': '{side} замкнули мельницу, но ход ещё не закончен: сначала нужно снять одну тёмную фишку. Можно снять: {offered}.',
  'note.mill.light': '{side} замкнули мельницу, но ход ещё не закончен: сначала нужно снять одну светлую фишку. Можно снять: {offered}.',
  'note.protected': 'Защищены мельницей: {protected}.',
  'note.passed': 'Взятие завершило ход. Теперь ходят {next}.',
  'note.quiet': 'Мельницы нет — ход сразу перешёл: ходят {next}.',
  'summary.placing': '{side}: можно поставить фишку на любую из свободных точек ({n}).',
  'summary.moving': '{side}: фишек, которые могут пойти, — {n}; всего ходов — {moves}. Выберите фишку, чтобы увидеть, куда она может пойти.',
  'summary.flying': '{side} летают: любая из {n} фишек — на любую из {free} свободных точек.',
  'summary.removing': '{side} должны снять фишку, на выбор: {n}.',
  'summary.over': 'Партия окончена.',

  'tab.start': 'Начало',
  'tab.placing': 'Расстановка',
  'tab.moving': 'Ходы',
  'tab.flying': 'Полёт',

  'board.title': 'Доска и три этапа игры',
  'board.body.html': `
    <p>Доска — это три квадрата, вложенные друг в друга и соединённые четырьмя линиями через середины сторон. Фишки ставят на <b>24 точки</b>, где линии сходятся или поворачивают, а не внутрь квадратов. Точки названы как поля шахматной доски: вертикали от <code>a</code> до <code>g</code> слева направо, горизонтали от <code>1</code> до <code>7</code> снизу вверх.</p>
    <p>Две точки <b>соседние</b>, если их соединяет один отрезок без промежуточной точки. <b>Мельница</b> — три ваши фишки на одной линии. Линий шестнадцать: двенадцать сторон квадратов и четыре коротких поперечных. Диагоналей нет.</p>
    <p>Первыми ходят светлые; у каждой стороны девять фишек. Партия проходит три этапа:</p>
    <ol class="phase-list">
      <li><b>Расстановка.</b> Стороны по очереди ставят по одной фишке из запаса на любую свободную точку, пока обе не выставят все девять. Стоящие на доске фишки в это время не двигаются.</li>
      <li><b>Ходы.</b> Затем каждый ход — шаг: одна ваша фишка сдвигается по линии на соседнюю свободную точку. Перепрыгивать нельзя.</li>
      <li><b>Полёт.</b> Когда расстановка закончена, сторона, у которой осталось ровно три фишки, может переставить любую из них на любую свободную точку.</li>
    </ol>`,
  'board.caption':
    'Начало партии: подсвечены все точки — светлые могут поставить фишку куда угодно. Нажимайте на точки (или используйте стрелки и Enter) — стороны ходят по очереди.',

  'removal.title': 'Мельница, затем взятие — это один ход',
  'removal.body.html': `
    <p>Если только что поставленная или передвинутая фишка замкнула мельницу, ваш ход <b>ещё не окончен</b>: нужно снять с доски одну фишку соперника, и лишь потом ходит он. Замкнуть ряд и сразу отдать ход нельзя.</p>
    <p>В записи это один ход: выставление или перемещение, затем <code>x</code> и точка, с которой сняли фишку, например <code>f4-g4xb6</code>. Снятая фишка в игру не возвращается.</p>
    <p>Нет новой мельницы — нет и взятия: ход переходит сразу. Мельница, которая просто стоит на доске, ничего не приносит. Но её можно разомкнуть и позже замкнуть снова — каждое новое замыкание даёт взятие по тем же правилам.</p>`,
  'removal.caption': 'Ходы, очередь светлых. Передвиньте f4 на g4 и замкните вертикаль g: доска сначала потребует взятие и только потом передаст ход тёмным.',

  'protected.title': 'Защищённые фишки',
  'protected.body.html': `
    <p>Снять можно не любую фишку. Фишка, стоящая в мельнице, <b>защищена</b>, пока у её владельца есть хотя бы одна фишка вне мельниц: снимать нужно одну из таких.</p>
    <p>Только если <b>все</b> фишки соперника на доске стоят в мельницах, можно снять фишку из мельницы. Фишки в запасе снять нельзя никогда.</p>`,
  'protected.tab.outside': 'd7 вне мельницы',
  'protected.tab.all': 'Все в мельнице',
  'protected.caption.outside': 'Светлые ставят на g7 и замыкают вертикаль g. Тёмные b2, b4 и b6 образуют мельницу, поэтому снять можно только d7.',
  'protected.caption.all': 'Без d7 все тёмные фишки стоят в мельнице — значит, после g7 можно снять любую из них.',

  'three.title': 'Мельница на 3 фишки',
  'three.body.html': `
    <p>Самая маленькая игра семейства («Танец трёх мужчин»), на девяти точках: линии — три ряда, три столбца и обе диагонали через центр. У каждого <b>по три фишки</b>. Их по очереди выставляют, затем ходят по одной на соседнюю свободную точку по линии; прыжков нет.</p>
    <p><b>Первая же линия выигрывает</b> — при расстановке или при ходе: фишки не снимаются. Остальное — как в мельнице на 9 фишек. Выберите её на первом экране в поле <i>Игра</i>.</p>`,
  'three.caption.placing': 'У светлых осталась одна фишка: g7 замыкает верхний ряд и сразу выигрывает.',
  'three.caption.moving': 'Расстановка окончена. a4-d4 даёт диагональ a1, d4, g7: светлые выиграли.',
  'six.title': 'Мельница на 6 фишек',
  'six.body.html': `
    <p>Два квадрата вместо трёх, шестнадцать точек и <b>по шесть фишек</b>. Квадраты соединены посередине сторон (a4-b4, d1-d2, g4-f4, d7-d6), но эти связки — только пути: <b>мельницы — восемь сторон</b> квадратов.</p>
    <p>Взятие, защита фишек в мельницах, прыжки при трёх фишках и поражение при двух — как в мельнице на 9 фишек.</p>`,
  'six.caption': 'Пустая доска: ставьте фишки за обе стороны и попробуйте.',
  'twelve.title': 'Мельница на 12 фишек',
  'twelve.body.html': `
    <p>Доска на 9 фишек и ещё <b>четыре диагонали</b> a1-b2-c3, a7-b6-c5, g7-f6-e5 и g1-f2-e3 — и пути, и мельницы; <b>по двенадцать фишек</b>, прыжки — <b>при четырёх</b>.</p>
    <p>Двадцать четыре фишки могут заполнить доску: если после расстановки свободных точек нет, это <b>ничья</b> (ходить всё равно некуда).</p>
    <p>На любой доске со взятием в <i>Правилах</i> на первом экране можно снимать по фишке за каждую мельницу (защита проверяется заново перед вторым взятием), снимать и фишки из мельниц, и выбрать, когда начинаются прыжки.</p>`,
  'twelve.tab.full': 'Полная доска',
  'twelve.caption.diagonal': 'a1 и b2 — светлые: c3 замыкает диагональную мельницу и снимает тёмную фишку.',
  'twelve.caption.full': 'Две свободные точки. Если расстановка не замкнёт мельницу, доска заполнится — ничья.',
  'flying.title': 'Полёт — ровно при трёх фишках',
  'flying.body.html': `
    <p>После расстановки сторона, у которой на доске <b>ровно три</b> фишки, летает: в свой ход она берёт любую свою фишку и ставит на любую свободную точку, как бы далеко та ни была и что бы ни стояло между ними.</p>
    <p>Летает только эта сторона. Соперник с четырьмя фишками и больше по-прежнему ходит на соседние точки; если у обоих по три, летают оба. Три фишки <em>в запасе</em> во время расстановки права на полёт не дают.</p>`,
  'flying.tab.light': 'Светлые летают',
  'flying.tab.dark': 'Тёмные шагают',
  'flying.caption.light': 'У светлых три фишки: выберите любую — и подсветятся все свободные точки. Полёт f2 на a4 замыкает вертикаль a.',
  'flying.caption.dark': 'Та же доска, ход тёмных: у них пять фишек, поэтому они по-прежнему шагают по линиям.',

  'losing.title': 'Два способа проиграть',
  'losing.body.html': `
    <p>Оба условия проверяются после каждого завершённого хода, включая взятие:</p>
    <ul>
      <li><b>Слишком мало фишек.</b> Сторона, у которой фишек на доске и в запасе вместе меньше трёх, проигрывает: мельницу ей уже не построить.</li>
      <li><b>Нет допустимого хода.</b> После расстановки сторона, которой нужно ходить, а все её фишки заперты, проигрывает — сколько бы фишек у неё ни было. Летающая сторона всегда может сходить, поэтому блокада действует только против четырёх фишек и больше.</li>
    </ul>
    <p>Поэтому одного подсчёта мельниц мало, чтобы оценить позицию: держите в уме оба условия.</p>`,
  'losing.tab.pieces': 'Осталось две',
  'losing.tab.blocked': 'Блокада',
  'losing.caption.pieces': 'У тёмных три фишки. Сходите g4 на g1, замкните мельницу, снимите любую тёмную фишку — у тёмных останется две, и светлые победят.',
  'losing.caption.blocked': 'Четыре тёмные фишки почти заперты. Сходите d1 на a1: у тёмных не останется ходов, и светлые победят.',

  'draws.title': 'Ничья',
  'draws.body.html': `
    <ul>
      <li><b>Троекратное повторение.</b> Когда одна и та же позиция — те же фишки на тех же точках, та же очередь хода, тот же запас — возникает в третий раз, партия заканчивается вничью. Позиции сравниваются только между ходами, не посреди хода.</li>
      <li><b>100 ходов без взятия.</b> Если после расстановки 100 ходов подряд (по 50 у каждой стороны) обходятся без взятия, это ничья. Каждое взятие начинает отсчёт заново.</li>
    </ul>
    <p>В сетевой партии с другом можно ещё предложить ничью; если соперник согласен, партия окончена.</p>`,
  'draws.tab.hundred': '100 ходов',
  'draws.tab.threefold': 'Повторение',
  'draws.caption.hundred': 'Сыграно 99 ходов без взятия. Любой ход, который не замыкает мельницу, станет сотым — попробуйте.',
  'draws.caption.threefold': 'Походите туда-обратно: светлые a1–a4, тёмные g7–g4, затем оба обратно. Повторите дважды — позиция возникнет в третий раз, и будет ничья.',

  'myths.title': 'Частые заблуждения',
  'myths.body.html': `
    <dl class="myths">
      <div class="myth"><dt>«После мельницы можно снять любую фишку, даже из мельницы».</dt>
      <dd>Фишки в мельнице защищены, пока у соперника есть фишки вне мельниц. Сначала снимают такие.</dd></div>
      <div class="myth"><dt>«Две мельницы сразу — две снятые фишки».</dt>
      <dd>Здесь одно выставление или перемещение даёт одно взятие, сколько бы линий оно ни замкнуло.</dd></div>
      <div class="myth"><dt>«Сейчас замкну мельницу, а сниму потом».</dt>
      <dd>Взятие — часть того же хода. Соперник не ходит, пока оно не сделано.</dd></div>
      <div class="myth"><dt>«Стоящая мельница приносит взятия и дальше».</dt>
      <dd>Засчитывается только новое замыкание. Разомкните мельницу и замкните снова — будет ещё одно взятие.</dd></div>
      <div class="myth"><dt>«В запасе осталось три фишки — значит, можно летать».</dt>
      <dd>Для полёта расстановка должна закончиться, а на доске должно остаться ровно три фишки.</dd></div>
      <div class="myth"><dt>«Если у меня больше фишек, я не проиграю».</dt>
      <dd>Сторона, которой некуда ходить, проигрывает, сколько бы фишек у неё ни было.</dd></div>
    </dl>`,

  'worked.title': 'Разбор позиции: замкнули мельницу — завершите ход',
  'worked.body.html': `
    <p>Идёт расстановка, ход светлых. Светлые фишки стоят на <code>a1</code> и <code>d1</code>, точка <code>g1</code> свободна. Тёмная фишка на <code>d2</code> ни в какую мельницу не входит, а тёмные <code>b6</code>, <code>d6</code> и <code>f6</code> образуют мельницу. Больше ничто не касается нижней стороны внешнего квадрата.</p>
    <p class="question">Светлые ставят фишку на <code>g1</code>. Переходит ли ход к тёмным?</p>
    <p>Сначала попробуйте сами: поставьте фишку на <code>g1</code> и посмотрите, чего потребует доска.</p>`,
  'worked.caption': 'Ход светлых, расстановка. Поставьте фишку на g1.',
  'worked.note.mill': 'a1, d1 и g1 — мельница, и ход светлых не окончен: доска требует взятие и предлагает только {offered}. Защищены мельницей: {protected}.',
  'worked.note.passed': 'Взятие сделано — ход светлых завершён, теперь ставят тёмные.',
  'worked.show': 'Показать ответ',
  'worked.hide': 'Скрыть ответ',
  'worked.answer.html': `
    <p><b>Нет, пока нет.</b> <code>a1</code>, <code>d1</code>, <code>g1</code> — мельница, поэтому светлые сначала снимают тёмную фишку. Разрешена только <code>d2</code>: <code>b6</code>, <code>d6</code> и <code>f6</code> защищены своей мельницей, а <code>d2</code> стоит вне мельниц. После взятия ход переходит, и тёмные ставят свою фишку. Весь ход записывается как <code>g1xd2</code>.</p>
    <p>Решают этап игры и то, завершён ли ход, а не подсчёт фишек. Даже когда две мельницы поочерёдно размыкают и замыкают, создавая угрозу за угрозой, каждое взятие проверяется отдельно.</p>
    <p class="fine">Это учебная позиция, а не запись партии, и не утверждение, что g1 — лучший ход.</p>`,

  'practice.title': 'Упражнения',
  'practice.lead': 'Три коротких упражнения. Доски живые: движок правил отвечает на каждое нажатие, а кнопка «Сначала» возвращает доску в исходную позицию.',
  'checkYourself': 'Проверьте себя',
  'ex1.title': '1. Расстановка, ходы, полёт',
  'ex1.body.html': `<p>Одна доска — три этапа. Переключайтесь между ними и сравнивайте подсветку: куда светлые могут поставить фишку, какие фишки могут пойти и куда, куда может приземлиться летающая фишка.</p>`,
  'ex1.check': 'Летает только сторона, у которой после расстановки осталось ровно три фишки. В позиции с полётом у тёмных пять фишек, и они по-прежнему шагают.',
  'ex1.caption.placing': 'Расстановка: поставить фишку можно на любую свободную точку.',
  'ex1.caption.moving': 'Ходы: пойти могут только фишки со свободной соседней точкой. a1 и b4 заперты.',
  'ex1.caption.flying': 'Полёт: у светлых три фишки, и каждая может перелететь на любую свободную точку.',
  'ex2.title': '2. Две мельницы одной фишкой',
  'ex2.body.html': `<p>У светлых две пары на линиях — <code>a1</code>–<code>d1</code> и <code>g4</code>–<code>g7</code> — с общей свободной точкой <code>g1</code>. Поставьте туда фишку: замкнутся обе мельницы, но светлые снимут одну фишку, и ход перейдёт.</p>`,
  'ex2.check': 'В партии тёмные ходят между вашими выставлениями. Оставят ли они вам g1? Общая точка — двойная угроза, только пока её не занял соперник.',
  'ex2.caption': 'Ход светлых, расстановка. Поставьте фишку на g1.',
  'ex2.tab.light': 'Ход светлых',
  'ex2.tab.dark': 'Ход тёмных',
  'ex2.caption.dark': 'Те же линии на ход раньше, очередь тёмных: тёмная фишка на g1 снимает обе угрозы сразу.',
  'ex2.note.mill': 'Одной фишкой — две мельницы, но взятие всё равно одно. Можно снять: {offered}.',
  'ex2.note.passed': 'Одна фишка снята, и ход перешёл к тёмным: две мельницы — одно взятие.',
  'ex3.title': '3. Блокада',
  'ex3.body.html': `<p>Светлые только что сыграли <code>f6</code>–<code>f4</code>. Теперь ход тёмных. <b>Какие тёмные фишки могут пойти?</b> Отметьте их на доске или в списке и проверьте ответ.</p>`,
  'ex3.check': 'Помните о двух способах проиграть: если бы ни одна тёмная фишка не могла пойти, тёмные проиграли бы сейчас, сколько бы фишек у них ни было.',
  'ex3.caption': 'Ход тёмных после f6–f4. Отметьте тёмные фишки, которые могут пойти.',
  'ex3.listLabel': 'Тёмные фишки, которые могут пойти',
  'ex3.status': 'Ход тёмных: какие фишки могут пойти?',
  'ex3.submit': 'Проверить',
  'ex3.clear': 'Сбросить',
  'ex3.right': 'Верно: пойти могут {pieces} — и больше ни одна. Теперь доска живая — попробуйте ходы тёмных.',
  'ex3.wrongExtra': 'Не совсем: у одной из выбранных фишок нет свободной соседней точки.',
  'ex3.wrongMissing': 'Не совсем: в вашем списке не хватает тёмной фишки, которая может пойти.',
  'ex3.pick': 'Отметьте хотя бы одну фишку.',
  'ex3.picked': 'Отмечено: {pieces}',
  'ex3.none': 'ничего',
  'ex3.point.picked': 'в вашем ответе',
  'ex3.point.pickable': 'нажмите Enter, чтобы добавить в ответ',

  'faq.title': 'Вопросы',
  'faq.items.html': `
    <details><summary>Что выбирать в начале хода?</summary>
      <p>При расстановке — свободную точку. При обычных ходах — свою фишку, затем подсвеченную соседнюю точку. При полёте — свою фишку, затем любую свободную точку. Подсветка всегда показывает, что можно сделать сейчас.</p></details>
    <details><summary>Я замкнул мельницу — почему ход всё ещё мой?</summary>
      <p>Потому что взятие — часть вашего хода. Снимите одну из подсвеченных фишек соперника, и ход перейдёт.</p></details>
    <details><summary>Можно ли снять фишку из мельницы соперника?</summary>
      <p>Только если все его фишки на доске стоят в мельницах. Пока хоть одна стоит вне мельниц, снимать нужно такую.</p></details>
    <details><summary>Я летаю, когда в запасе осталось три фишки?</summary>
      <p>Нет. Полёт начинается только после расстановки и только при ровно трёх фишках на доске. До тех пор действуют правила расстановки.</p></details>
    <details><summary>Если в разобранной позиции поставить на g1, можно сразу отдать ход тёмным?</summary>
      <p>Нет: a1–d1–g1 — мельница, поэтому сначала нужно снять разрешённую тёмную фишку — d2, она не стоит в мельнице. Только потом ходят тёмные.</p></details>
    <details><summary>Как партия заканчивается вничью?</summary>
      <p>Когда одна позиция возникает в третий раз, когда после расстановки прошло 100 ходов без взятия, или — в сетевой игре — по соглашению.</p></details>
    <details><summary>Можно ли играть с клавиатуры?</summary>
      <p>Да. Перейдите на доску клавишей Tab, перемещайтесь по точкам стрелками, нажимайте Enter или пробел, чтобы поставить, взять, передвинуть или снять фишку, и Escape, чтобы вернуть взятую фишку на место.</p></details>`,

  'cta.title': 'Правила понятны? Пора играть.',
  'cta.body': 'Поставьте себе на первые партии небольшую цель — построить одну мельницу или сохранить фишке свободу хода, — а не гонитесь за победой. Потом просмотрите свои ходы и возьмите один вывод в следующую партию.',
  'cta.button': 'Начать партию',
  'footer.note': 'Здесь описаны правила, по которым играет этот сайт: мельница с девятью фишками и полётом при трёх. Учебные позиции составлены для обучения и не взяты из записей партий.',
};

export const RULES_TEXT = { en, ru };

/**
 * A translate function for the rules page: its own words first, then the game's shared
 * words from i18n.js (colours, status line, results). Unknown keys show as the key.
 */
export function rulesTranslator(lang) {
  const own = RULES_TEXT[lang] ?? en;
  const shared = translator(lang);
  return (key, params = {}) => {
    const text = own[key] ?? (lang in RULES_TEXT ? undefined : en[key]);
    if (text === undefined) return shared(key, params);
    return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
  };
}

/** "a4 and c5" / "a4 и c5": a list of point names in the page's language. */
export function listOf(items, lang) {
  if (items.length === 0) return '';
  try {
    return new Intl.ListFormat(lang, { style: 'long', type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

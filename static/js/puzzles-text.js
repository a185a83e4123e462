// Owns the puzzles page's words in English and Russian. Pure: no DOM. The game's shared
// words (colours, the board's accessible names, variant names) come from i18n.js through
// the same translator. `{name}` is a parameter.

import { translator } from './i18n.js';

const en = {
  'doc.title': 'Mill puzzles — find the one right turn',
  'doc.description': 'Mill (Nine Men’s Morris) puzzles with exactly one right turn, proven by endgame tables or a deep search. A puzzle of the day and a rating of your own.',
  'nav.skip': 'Skip to the puzzle',
  'nav.play': 'Play',
  'puzzles.title': 'Puzzles',
  'puzzles.lead': 'Every position has exactly one right turn, proven by our endgame tables or checked by a deep search.',
  'puzzles.task.light.win': 'Light to play and win',
  'puzzles.task.dark.win': 'Dark to play and win',
  'puzzles.task.light.draw': 'Light to play and hold the draw',
  'puzzles.task.dark.draw': 'Dark to play and hold the draw',
  'puzzles.task.light.gain': 'Light to play and win material',
  'puzzles.task.dark.gain': 'Dark to play and win material',
  'puzzles.status.loading': 'Loading the puzzles…',
  'puzzles.status.failed': 'The puzzles did not load: {message}',
  'puzzles.status.none': 'No puzzles of this theme.',
  'puzzles.status.find': 'Your turn: find the one right turn.',
  'puzzles.status.remove': 'A mill: now choose the piece to remove.',
  'puzzles.status.right': 'Right! The opponent answers…',
  'puzzles.status.keepGoing': 'Right — the opponent played {reply}. Your turn again.',
  'puzzles.status.solved': 'Solved!',
  'puzzles.status.thinking': 'Not that one: {turn}. The opponent answers…',
  'puzzles.status.wrong': 'Not that one: after {turn} the opponent answers {reply}.',
  'puzzles.status.wrongAlone': 'Not that one: {turn} is not the answer.',
  'puzzles.status.wrongMill': 'Not that one: after {turn} the opponent answers {reply} and closes a mill.',
  'puzzles.status.wrongWins': 'Not that one: after {turn} the opponent answers {reply} and wins.',
  'puzzles.status.wrongThreat': 'Not that one: after {turn} the opponent answers {reply} and closes a mill at {point} next turn.',
  'puzzles.status.shown': 'The solution: {line}',
  'puzzles.status.hint': 'Hint: look at {point}. A hint counts as a miss for your rating.',
  'puzzles.status.refused': 'The rules refused that: {message}',
  'puzzles.hint': 'Hint',
  'puzzles.retry': 'Retry',
  'puzzles.solution': 'Solution',
  'puzzles.next': 'Next puzzle',
  'puzzles.daily': 'Puzzle of the day',
  'puzzles.dailyBadge': 'Puzzle of the day, {date}',
  'puzzles.review': 'Open in review',
  'puzzles.theme': 'Theme',
  'puzzles.theme.all': 'All themes',
  'puzzles.theme.mill-in-one': 'Mill in one',
  'puzzles.theme.double-mill': 'Double mill',
  'puzzles.theme.fork': 'Fork',
  'puzzles.theme.blockade': 'Blockade',
  'puzzles.theme.flying-ending': 'Flying ending',
  'puzzles.theme.defence': 'Defence',
  'puzzles.theme.hold-the-draw': 'Hold the draw',
  'puzzles.theme.placing': 'Placing',
  'puzzles.theme.long': 'Long line',
  'puzzles.theme.ending': 'Ending',
  'puzzles.theme.material': 'Win material',
  'puzzles.yourRating': 'Your rating',
  'puzzles.ratingChange': '({delta})',
  'puzzles.puzzleRating': 'Puzzle {id} · rating {rating}',
  'puzzles.source.tablebase': 'Proven by the endgame tables.',
  'puzzles.source.engine': 'Checked by a deep search: every other turn is at least a piece worse.',
};

const ru = {
  'doc.title': 'Задачи по мельнице — найдите единственный верный ход',
  'doc.description': 'Задачи по мельнице с ровно одним верным ходом, доказанным эндшпильными таблицами или глубоким расчётом. Задача дня и ваш собственный рейтинг.',
  'nav.skip': 'К задаче',
  'nav.play': 'Играть',
  'puzzles.title': 'Задачи',
  'puzzles.lead': 'В каждой позиции ровно один верный ход: он доказан нашими эндшпильными таблицами или проверен глубоким расчётом.',
  'puzzles.task.light.win': 'Ход светлых: выиграйте',
  'puzzles.task.dark.win': 'Ход тёмных: выиграйте',
  'puzzles.task.light.draw': 'Ход светлых: удержите ничью',
  'puzzles.task.dark.draw': 'Ход тёмных: удержите ничью',
  'puzzles.task.light.gain': 'Ход светлых: выиграйте материал',
  'puzzles.task.dark.gain': 'Ход тёмных: выиграйте материал',
  'puzzles.status.loading': 'Загрузка задач…',
  'puzzles.status.failed': 'Задачи не загрузились: {message}',
  'puzzles.status.none': 'Задач этой темы нет.',
  'puzzles.status.find': 'Ваш ход: найдите единственный верный ход.',
  'puzzles.status.remove': 'Мельница: теперь выберите, какую фишку снять.',
  'puzzles.status.right': 'Верно! Соперник отвечает…',
  'puzzles.status.keepGoing': 'Верно — соперник сыграл {reply}. Снова ваш ход.',
  'puzzles.status.solved': 'Решено!',
  'puzzles.status.thinking': 'Не то: {turn}. Соперник отвечает…',
  'puzzles.status.wrong': 'Не то: после {turn} соперник отвечает {reply}.',
  'puzzles.status.wrongAlone': 'Не то: {turn} — не решение.',
  'puzzles.status.wrongMill': 'Не то: после {turn} соперник отвечает {reply} и замыкает мельницу.',
  'puzzles.status.wrongWins': 'Не то: после {turn} соперник отвечает {reply} и выигрывает.',
  'puzzles.status.wrongThreat': 'Не то: после {turn} соперник отвечает {reply} и следующим ходом замыкает мельницу на {point}.',
  'puzzles.status.shown': 'Решение: {line}',
  'puzzles.status.hint': 'Подсказка: присмотритесь к {point}. Подсказка считается промахом для рейтинга.',
  'puzzles.status.refused': 'Правила не позволяют: {message}',
  'puzzles.hint': 'Подсказка',
  'puzzles.retry': 'Ещё раз',
  'puzzles.solution': 'Решение',
  'puzzles.next': 'Следующая задача',
  'puzzles.daily': 'Задача дня',
  'puzzles.dailyBadge': 'Задача дня, {date}',
  'puzzles.review': 'Открыть в разборе',
  'puzzles.theme': 'Тема',
  'puzzles.theme.all': 'Все темы',
  'puzzles.theme.mill-in-one': 'Мельница в один ход',
  'puzzles.theme.double-mill': 'Двойная мельница',
  'puzzles.theme.fork': 'Вилка',
  'puzzles.theme.blockade': 'Блокировка',
  'puzzles.theme.flying-ending': 'Эндшпиль с прыжками',
  'puzzles.theme.defence': 'Защита',
  'puzzles.theme.hold-the-draw': 'Удержать ничью',
  'puzzles.theme.placing': 'Расстановка',
  'puzzles.theme.long': 'Длинный вариант',
  'puzzles.theme.ending': 'Эндшпиль',
  'puzzles.theme.material': 'Выигрыш материала',
  'puzzles.yourRating': 'Ваш рейтинг',
  'puzzles.ratingChange': '({delta})',
  'puzzles.puzzleRating': 'Задача {id} · рейтинг {rating}',
  'puzzles.source.tablebase': 'Доказано эндшпильными таблицами.',
  'puzzles.source.engine': 'Проверено глубоким расчётом: любой другой ход хуже хотя бы на фишку.',
};

export const PUZZLES_TEXT = { en, ru };

/**
 * A translate function for the puzzles page: its own words first, then the game's
 * shared words from i18n.js. Unknown keys show as the key.
 * @param {import('./types.js').Lang} lang
 */
export function puzzlesTranslator(lang) {
  const own = PUZZLES_TEXT[lang] ?? en;
  const shared = translator(lang);
  return (/** @type {string} */ key, /** @type {Record<string, string | number>} */ params = {}) => {
    const text = own[key];
    if (text === undefined) return shared(key, params);
    return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
  };
}

// Owns the words of the account pages (/account: sign up, sign in, sign out; /@/{name}:
// a player's profile) in English and Russian. Pure: no DOM. Shared words (variant
// names, the theme and language switches) come from i18n.js through the same
// translator. `{name}` is a parameter.

import { translator } from './i18n.js';

const en = {
  'account.doc.title': 'Mill — your account',
  'account.doc.description': 'Sign up or sign in to keep a name, ratings and your games. Playing needs no account.',
  'profile.doc.title': '{name} — Mill player',
  'profile.doc.notFound': 'No such player — Mill',
  'nav.skip': 'Skip to the content',
  'nav.play': 'Play',
  'account.title': 'Your account',
  'account.lead': 'An account keeps your name and ratings. Playing needs none: every game works without it.',
  'account.name': 'Name',
  'account.name.hint': '3 to 20 letters, digits, _ or -',
  'account.password': 'Password',
  'account.password.hint': 'At least 8 characters; not a common one',
  'account.signIn': 'Sign in',
  'account.signUp': 'Create account',
  'account.signUp.title': 'New here?',
  'account.signIn.title': 'Have an account?',
  'account.signedIn': 'Signed in as {name}.',
  'account.profile': 'Your profile',
  'account.signOut': 'Sign out',
  'account.signOutEverywhere': 'Sign out everywhere',
  'account.delete': 'Delete account',
  'account.delete.confirm': 'Type your password to delete the account. Your games stay, under the name “deleted”.',
  'account.working': 'One moment…',
  'account.done.signedUp': 'Welcome, {name}! Your account is ready.',
  'account.done.signedIn': 'Welcome back, {name}.',
  'account.done.signedOut': 'Signed out.',
  'account.done.deleted': 'The account is deleted.',
  'account.error.name-taken': 'This name is taken; choose another.',
  'account.error.bad-name': 'A name is 3 to 20 letters (a–z), digits, _ or -.',
  'account.error.weak-password': 'Choose a stronger password: at least 8 characters, not a common one and not your name.',
  'account.error.bad-credentials': 'No account has this name and password.',
  'account.error.throttled': 'Too many failed attempts; try again in 15 minutes.',
  'account.error.rate-limited': 'Too many requests from your address; try again in a minute.',
  'account.error.cross-site': 'This request came from another site and was refused.',
  'account.error.sign-in-required': 'Sign in first.',
  'account.error.other': 'Something went wrong ({code}); try again.',
  'account.error.network': 'The server cannot be reached; try again.',
  'profile.ratings': 'Ratings',
  'profile.none': 'No rated games yet.',
  'profile.notFound': 'There is no player with this name.',
  'profile.game': 'Game',
  'profile.speed': 'Speed',
  'profile.rating': 'Rating',
  'profile.games': 'Rated games',
  'profile.provisional': 'provisional',
  'profile.rd': '±{rd}',
  'speed.bullet': 'Bullet',
  'speed.blitz': 'Blitz',
  'speed.rapid': 'Rapid',
  'speed.classical': 'Classical',
  'speed.correspondence': 'Correspondence',
  'nav.account': 'Account',
  'nav.players': 'Leaderboard',
  'board.doc.title': '{board} — Mill leaderboard',
  'board.title': 'Leaderboard',
  'board.lead': 'Players with an established rating who played a rated game in the last 30 days.',
  'board.rank': 'Rank',
  'board.player': 'Player',
  'board.none': 'Nobody is on this leaderboard yet.',
};

/** @type {Record<keyof typeof en, string>} */
const ru = {
  'account.doc.title': 'Мельница — ваша учётная запись',
  'account.doc.description': 'Зарегистрируйтесь или войдите, чтобы сохранить имя, рейтинги и свои партии. Играть можно и без учётной записи.',
  'profile.doc.title': '{name} — игрок в мельницу',
  'profile.doc.notFound': 'Такого игрока нет — Мельница',
  'nav.skip': 'Перейти к содержимому',
  'nav.play': 'Играть',
  'account.title': 'Ваша учётная запись',
  'account.lead': 'Учётная запись хранит ваше имя и рейтинги. Для игры она не нужна: всё работает и без неё.',
  'account.name': 'Имя',
  'account.name.hint': 'От 3 до 20 латинских букв, цифр, _ или -',
  'account.password': 'Пароль',
  'account.password.hint': 'Не короче 8 символов и не из самых частых',
  'account.signIn': 'Войти',
  'account.signUp': 'Создать учётную запись',
  'account.signUp.title': 'Впервые здесь?',
  'account.signIn.title': 'Уже есть учётная запись?',
  'account.signedIn': 'Вы вошли как {name}.',
  'account.profile': 'Ваш профиль',
  'account.signOut': 'Выйти',
  'account.signOutEverywhere': 'Выйти на всех устройствах',
  'account.delete': 'Удалить учётную запись',
  'account.delete.confirm': 'Введите пароль, чтобы удалить учётную запись. Партии останутся под именем «deleted».',
  'account.working': 'Минутку…',
  'account.done.signedUp': 'Добро пожаловать, {name}! Учётная запись создана.',
  'account.done.signedIn': 'С возвращением, {name}.',
  'account.done.signedOut': 'Вы вышли.',
  'account.done.deleted': 'Учётная запись удалена.',
  'account.error.name-taken': 'Это имя занято; выберите другое.',
  'account.error.bad-name': 'Имя — от 3 до 20 латинских букв, цифр, _ или -.',
  'account.error.weak-password': 'Выберите пароль надёжнее: не короче 8 символов, не из самых частых и не ваше имя.',
  'account.error.bad-credentials': 'Нет учётной записи с таким именем и паролем.',
  'account.error.throttled': 'Слишком много неудачных попыток; попробуйте через 15 минут.',
  'account.error.rate-limited': 'Слишком много запросов с вашего адреса; попробуйте через минуту.',
  'account.error.cross-site': 'Запрос пришёл с другого сайта и отклонён.',
  'account.error.sign-in-required': 'Сначала войдите.',
  'account.error.other': 'Что-то пошло не так ({code}); попробуйте ещё раз.',
  'account.error.network': 'Сервер недоступен; попробуйте ещё раз.',
  'profile.ratings': 'Рейтинги',
  'profile.none': 'Рейтинговых партий пока нет.',
  'profile.notFound': 'Игрока с таким именем нет.',
  'profile.game': 'Игра',
  'profile.speed': 'Контроль',
  'profile.rating': 'Рейтинг',
  'profile.games': 'Рейтинговых партий',
  'profile.provisional': 'предварительный',
  'profile.rd': '±{rd}',
  'speed.bullet': 'Пуля',
  'speed.blitz': 'Блиц',
  'speed.rapid': 'Рапид',
  'speed.classical': 'Классика',
  'speed.correspondence': 'По переписке',
  'nav.account': 'Учётная запись',
  'nav.players': 'Рейтинг игроков',
  'board.doc.title': '{board} — рейтинг игроков в мельницу',
  'board.title': 'Рейтинг игроков',
  'board.lead': 'Игроки с устоявшимся рейтингом, сыгравшие рейтинговую партию за последние 30 дней.',
  'board.rank': 'Место',
  'board.player': 'Игрок',
  'board.none': 'В этом рейтинге пока никого нет.',
};

/** The account pages' words, by language (the unit test checks both have every key). */
export const ACCOUNT_TEXT = { en, ru };

/**
 * A translator for the account pages: their own words, else the page's shared ones.
 * @param {import('./types.js').Lang} lang
 */
export function accountTranslator(lang) {
  const own = /** @type {Record<string, string>} */ (ACCOUNT_TEXT[lang] ?? en);
  const shared = translator(lang);
  return (/** @type {string} */ key, /** @type {Record<string, string | number>} */ params = {}) => {
    const text = own[key];
    if (text === undefined) return shared(key, params);
    return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
  };
}

// Wiring of the rules page (/rules): its words in the chosen language, the language
// switch (the same saved choice as the game page), the live diagrams and the worked
// position's "Show answer", and the screen-reader mode (the game page's remembered switch):
// a live region that says what an exercise asks and the result of each attempt. The words
// are in rules-text.js, the positions in rules-diagrams.js; each board is a
// rules-diagram.js component.

import { pickLanguage } from './i18n.js';
import { DIAGRAMS } from './rules-diagrams.js';
import { mountDiagram } from './rules-diagram.js';
import { rulesTranslator } from './rules-text.js';
import { loadRules } from './rules.js';
import { all } from './dom.js';
import { safeStorage, SCREEN_READER_KEY } from './storage.js';
import { bindThemeSwitch } from './theme.js';

const storage = safeStorage(() => window.localStorage);
// The same remembered theme as the game page.
const theme = bindThemeSwitch(/** @type {HTMLButtonElement} */ (document.getElementById('theme')), storage);
let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = rulesTranslator(lang);
const diagrams = [];

// ---------------------------------------------------------------- the screen-reader mode

const srToggle = document.getElementById('sr-mode');
const region = document.getElementById('announce');
let srOn = storage.get(SCREEN_READER_KEY) === 'on';
/** The turn's words come from the game page's announcer, loaded only in this mode. @type {typeof import('./announce.js') | null} */
let announcer = null;
let said = 0;

/** Each part a sentence; empty parts left out. @param {string[]} parts */
function sentence(parts) {
  return parts
    .filter(Boolean)
    .map((p) => (/[.!?…:]$/.test(p) ? p : `${p}.`))
    .join(' ');
}

/** What the diagrams tell a screen-reader user (rules-diagram.js's `voice`). */
const voice = {
  on: () => srOn,
  /** @param {string[]} parts */
  say(parts) {
    const text = sentence(parts);
    if (!srOn || !text || !region) return;
    const p = document.createElement('p');
    p.textContent = text;
    region.append(p);
    // Tests wait on the count; the region keeps the last few.
    region.dataset.count = String(++said);
    while (region.childElementCount > 20) region.firstElementChild?.remove();
  },
  /** @param {any} before @param {any} after @param {(key: string, params?: object) => string} tr @returns {string[]} */
  turn(before, after, tr) {
    return announcer ? announcer.announcementsOf(before, after, tr) : [];
  },
};

function showScreenReader() {
  srToggle?.setAttribute('aria-pressed', String(srOn));
  document.body.dataset.screenReader = srOn ? 'on' : 'off';
  // The live region speaks for the diagrams' own status lines in this mode, not both.
  for (const node of all('figure [data-role="status"], figure [data-role="note"], figure [data-role="feedback"]')) {
    node.setAttribute('aria-live', srOn ? 'off' : 'polite');
  }
  if (srOn && !announcer) {
    import('./announce.js').then(
      (mod) => (announcer = mod),
      (error) => console.warn('Mill: no announcer', error),
    );
  }
}

srToggle?.addEventListener('click', () => {
  srOn = !srOn;
  storage.set(SCREEN_READER_KEY, srOn ? 'on' : 'off');
  showScreenReader();
});

function applyLanguage() {
  t = rulesTranslator(lang);
  document.documentElement.lang = lang;
  // The switch is written in the other language; say so for screen readers.
  document.getElementById('lang')?.setAttribute('lang', lang === 'en' ? 'ru' : 'en');
  document.title = t('doc.title');
  document.querySelector('meta[name="description"]')?.setAttribute('content', t('doc.description'));
  for (const node of all('[data-rt]')) node.textContent = t(node.dataset.rt);
  // Markup written in rules-text.js itself, never text from elsewhere.
  for (const node of all('[data-rt-html]')) node.innerHTML = t(node.dataset.rtHtml);
  for (const node of all('[data-rt-aria]')) node.setAttribute('aria-label', t(node.dataset.rtAria));
  for (const node of all('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  // The screen-reader switch, named as on the game page.
  document.getElementById('sr-mode')?.setAttribute('aria-label', t('sr.label'));
  updateAnswerButton();
  theme.refresh((next) => t(next === 'light' ? 'theme.toLight' : 'theme.toDark'));
  for (const d of diagrams) d.setLanguage(t, lang);
}

document.getElementById('lang').addEventListener('click', () => {
  lang = lang === 'en' ? 'ru' : 'en';
  storage.set('lang', lang);
  applyLanguage();
});

// ---------------------------------------------------------------- the worked position's answer

const answerButton = document.getElementById('worked-show');
const answer = document.getElementById('worked-answer');

function updateAnswerButton() {
  answerButton.textContent = t(answer.hidden ? 'worked.show' : 'worked.hide');
  answerButton.setAttribute('aria-expanded', String(!answer.hidden));
}

answerButton.addEventListener('click', () => {
  answer.hidden = !answer.hidden;
  updateAnswerButton();
  if (!answer.hidden) answer.focus({ preventScroll: true });
});

// ---------------------------------------------------------------- the boards

async function mountDiagrams() {
  let mod;
  try {
    mod = await loadRules();
  } catch (error) {
    console.error(error);
    for (const figure of document.querySelectorAll('[data-diagram]')) {
      figure.replaceChildren();
      const p = document.createElement('p');
      p.className = 'diagram-failed';
      p.dataset.i18n = 'error.wasm';
      p.textContent = t('error.wasm');
      figure.appendChild(p);
    }
    return;
  }
  for (const spec of DIAGRAMS) {
    const figure = document.querySelector(`[data-diagram="${spec.id}"]`);
    if (figure) diagrams.push(mountDiagram(figure, spec, { mod, t, lang, voice }));
  }
  showScreenReader();
  document.body.dataset.ready = 'true';
}

applyLanguage();
showScreenReader();
mountDiagrams();

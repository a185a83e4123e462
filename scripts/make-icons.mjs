// Draws the installed page's icons (static/icons/*.png, named in static/manifest.webmanifest)
// from one SVG, the favicon's board, by screenshotting it in headless Chromium: the
// ordinary ones on a rounded dark square, the maskable one full-bleed with the board
// inside the safe zone (the middle 80%). Run: node scripts/make-icons.mjs
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { launch } from '../tests/e2e/helpers.mjs';

const OUT = fileURLToPath(new URL('../static/icons/', import.meta.url));

/** The board: three squares joined at their middles, and three pieces, on `inset` of 100. */
function svg(size, { maskable }) {
  const inset = maskable ? 22 : 12;
  const s = 100 - 2 * inset;
  const at = (f) => inset + f * s;
  const squares = [0, 1 / 6, 1 / 3].map((f) => `<rect x="${at(f)}" y="${at(f)}" width="${s * (1 - 2 * f)}" height="${s * (1 - 2 * f)}" rx="${2 - f * 3}"/>`).join('');
  const joins = `<path d="M50 ${at(0)}V${at(1 / 3)}M50 ${at(2 / 3)}V${at(1)}M${at(0)} 50H${at(1 / 3)}M${at(2 / 3)} 50H${at(1)}"/>`;
  const pieces = [
    [at(0), at(0), '#eef1f4'],
    [at(1), at(0), '#eef1f4'],
    [at(1 / 6), 50, '#f0b44c'],
  ].map(([x, y, fill]) => `<circle cx="${x}" cy="${y}" r="${s / 11}" fill="${fill}" stroke="#151a21" stroke-width="1.5"/>`).join('');
  const bg = maskable ? '<rect width="100" height="100" fill="#151a21"/>' : '<rect width="100" height="100" rx="20" fill="#151a21"/>';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100">${bg}<g fill="none" stroke="#f0b44c" stroke-width="${s / 28}">${squares}${joins}</g>${pieces}</svg>`;
}

mkdirSync(OUT, { recursive: true });
const browser = await launch();
const page = await browser.newPage();
for (const [name, size, maskable] of [
  ['icon-192.png', 192, false],
  ['icon-512.png', 512, false],
  ['icon-maskable-512.png', 512, true],
]) {
  await page.setViewportSize({ width: size, height: size });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg(size, { maskable })}</body></html>`);
  await page.locator('svg').screenshot({ path: `${OUT}${name}`, omitBackground: true });
}
await browser.close();

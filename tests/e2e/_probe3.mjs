import { startStaticServer, launch, openPage, PHONE, ROOT } from './helpers.mjs';
import { join } from 'node:path';
const server = await startStaticServer();
const browser = await launch();
for (const scheme of ['light', 'dark']) for (const lang of ['ru', 'en']) for (const path of ['/rules', '/', '/#local']) {
const ctx = await browser.newContext({ viewport: PHONE, colorScheme: scheme });
await ctx.addInitScript((l) => localStorage.setItem('mill.lang', l), lang);
const page = await openPage(ctx, server.url + path);
await page.waitForTimeout(800);
await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
const r = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'));
for (const v of r) for (const n of v.nodes) console.log(scheme, lang, path, v.id, n.html.slice(0, 100), n.any?.[0]?.message?.slice(0, 120));
await ctx.close();
}
await browser.close(); await server.close();

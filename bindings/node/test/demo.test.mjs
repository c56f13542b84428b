// The demo page in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core): typing a bad RUC shows
// the error next to the RUC field, from the light entry kuatia/validate; a valid form shows totals and the KuDE
// preview (kuatia/kude, loaded on demand). Saves demo/screenshot.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, normalize, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm" };
const CHROMIUM = "/usr/bin/chromium";

function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(ROOT, path);
    if (!file.startsWith(ROOT)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

test("demo: validates as you type, error next to the RUC field, totals, KuDE preview", async () => {
  // Chromium is required, not optional: scripts/wasm-check.sh installs it (Debian chromium).
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: the browser demo needs Chromium (apt-get install chromium)`);
  const server = await serve();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1300 } });
    const problems = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    const fetched = [];
    page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
    await page.goto(`http://127.0.0.1:${server.address().port}/demo/index.html`);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    assert.match(await page.textContent("#status"), /lista para enviar/);
    await page.waitForFunction(() => document.querySelector("#kude-status").textContent.includes("PDF"));
    assert.match(await page.textContent("#totales"), /Total general/);

    // Validation runs on the light entry (kuatia/validate); the KuDE module loads only for the preview.
    assert.ok(fetched.includes("/dist/validate/kuatia_wasm_bg.wasm"), fetched.join(" "));
    assert.ok(!fetched.includes("/dist/default/kuatia_wasm_bg.wasm"), fetched.join(" "));
    await page.fill("#ruc", "80069563-2");
    const slot = page.locator('[data-error-for="receptor.ruc"]');
    // The message a cashier reads, in Spanish (the default), and only it: no registry code in the slot.
    await assert.doesNotReject(
      slot.filter({ hasText: "El dígito verificador del RUC no corresponde: debería ser 1, no 2" }).waitFor(),
    );
    assert.doesNotMatch(await slot.textContent(), /INVALID_RUC/);
    assert.equal(await slot.getAttribute("title"), "INVALID_RUC (ruc.check_digit)");
    // "Next to the field": the message shares the RUC input's label row and sits to its right.
    const [input, msg] = [await page.locator("#ruc").boundingBox(), await slot.boundingBox()];
    assert.ok(Math.abs(input.y + input.height / 2 - (msg.y + msg.height / 2)) < 20, "same row");
    assert.ok(msg.x >= input.x + input.width, "to the right of the input");
    assert.ok(await page.locator("#ruc").evaluate((el) => el.classList.contains("bad")));
    assert.match(await page.textContent("#status"), /1 problema/);
    await page.screenshot({ path: join(ROOT, "demo/screenshot.png"), fullPage: true });

    await page.fill("#ruc", "80069563-1");
    await page.waitForFunction(() => document.querySelector('[data-error-for="receptor.ruc"]').textContent === "");
    await page.fill("#precio", "550000");
    await page.waitForFunction(() => document.querySelector("#totales").textContent.includes("550.000"));
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

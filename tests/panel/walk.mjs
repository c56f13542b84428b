// Walks a new issuer through the account panel of a running `kuatia serve` in headless Chromium (Debian's, driven
// by playwright-core): one-time link → production profile → P12 upload → sandbox key → a sandbox invoice over the
// API with that key → approved in the panel → KuDE download → webhook, live key, RUC declaration, the checklist
// turning green item by item. A screenshot of each page goes to $SHOTS. Loopback only.
//
//   node tests/panel/walk.mjs <base url> <one-time link> <screenshot dir> <repo root>
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const [base, link, shots, root] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const profileDir = mkdtempSync(join(tmpdir(), "kuatia-panel-chromium-"));

// A webhook receiver on loopback (the server runs with --allow-private-webhooks --insecure-webhooks-http).
const received = [];
const hooks = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => { received.push(body); res.writeHead(200).end("ok"); });
});
await new Promise((r) => hooks.listen(0, "127.0.0.1", r));
const hookUrl = `https://127.0.0.1:${hooks.address().port}/hook`;

const browser = await chromium.launchPersistentContext(profileDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  acceptDownloads: true,
  viewport: { width: 414, height: 896 }, // a phone
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = browser.pages()[0] ?? (await browser.newPage());
page.setDefaultTimeout(10000);
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
// HTTP error statuses (the refused upload, a missing favicon) are answers, not script errors.
page.on("console", (m) => { if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text()); });
let n = 0;
const shot = async (name) => {
  n += 1;
  // Every form control of every page has a label (accessibility), and the page declares Spanish.
  const unlabeled = await page.$$eval("input:not([type=hidden]), select, textarea",
    (els) => els.filter((e) => e.labels.length === 0 && !e.getAttribute("aria-label")).map((e) => e.outerHTML));
  assert.deepEqual(unlabeled, [], `unlabeled controls on ${name}`);
  assert.equal(await page.getAttribute("html", "lang"), "es");
  await page.screenshot({ path: join(shots, `${String(n).padStart(2, "0")}-${name}.png`), fullPage: true });
};
const green = async () => {
  await page.goto(`${base}/panel`);
  return page.locator("ol.checklist li.ok").count();
};
const nav = (name) => page.getByRole("navigation").getByRole("link", { name, exact: true }).click();
const step = (s) => console.log(`  panel: ${s}`);

try {
  step("one-time link");
  await page.goto(link);
  await shot("enlace");
  await page.getByRole("button", { name: "Ingresar al panel" }).click();
  await page.waitForURL(`${base}/panel`);
  await shot("preparacion-inicio");
  const greens = [await page.locator("ol.checklist li.ok").count()];
  assert.equal(greens[0], 0, "a new account meets no production prerequisite");
  // The link worked once: reopening it and pressing the button is refused.
  const other = await browser.newPage();
  await other.goto(link);
  await other.getByRole("button", { name: "Ingresar al panel" }).click();
  assert.match(await other.textContent("main"), /ya se usó/);
  await other.close();

  step("emitter profile");
  await nav("Perfil y timbrados");
  await page.getByLabel("RUC con dígito verificador").fill("44444401-7");
  await page.getByLabel("Razón social").fill("Estudio Contable Demo S.A.");
  await page.locator("#timbrados").fill("12558946 | 2024-01-01 | | 1,4,5,6,7 | 001 | 001");
  await page.getByLabel("Identificador del CSC (4 dígitos)").fill("0001");
  await page.locator("#csc_secreto").fill("ABCD0000000000000000000000000000");
  await page.getByRole("button", { name: "Guardar perfil" }).click();
  assert.match(await page.textContent("main"), /Perfil guardado/);
  await shot("perfil");
  greens.push(await green());

  step("P12 upload");
  await nav("Certificado");
  await page.getByLabel("Archivo P12").setInputFiles(join(root, "tests/fixtures/certs/sandbox.p12"));
  await page.getByLabel("Contraseña del P12").fill("una-clave-equivocada");
  await page.getByRole("button", { name: "Subir certificado" }).click();
  assert.match(await page.textContent("main"), /La contraseña no abre este archivo P12/);
  await shot("certificado-rechazado");
  await page.getByLabel("Archivo P12").setInputFiles(join(root, "tests/fixtures/certs/sandbox.p12"));
  await page.getByLabel("Contraseña del P12").fill("kuatia-test");
  await page.getByRole("button", { name: "Subir certificado" }).click();
  const certText = await page.textContent("main");
  assert.match(certText, /Certificado guardado/);
  assert.match(certText, /44444401-7/);
  assert.match(certText, /Días hasta el vencimiento/);
  assert.doesNotMatch(await page.content(), /kuatia-test"/);
  await shot("certificado");
  greens.push(await green());

  step("sandbox key");
  await nav("Claves API");
  await page.getByRole("button", { name: "Crear clave" }).click();
  const key = await page.locator("#nueva-clave").inputValue();
  assert.match(key, /^dk_test_[A-Za-z0-9]{40}$/);
  assert.match(await page.textContent("main"), /no se volverá a mostrar/);
  await page.getByRole("button", { name: "Copiar" }).click();
  await shot("clave-creada");

  step("a sandbox invoice over the API with that key");
  const factura = readFileSync(join(root, "examples/factura.json"), "utf8");
  const created = await fetch(`${base}/v1/facturas`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "X-Environment": "sandbox", "Content-Type": "application/json" },
    body: factura,
  }).then((r) => r.json());
  assert.equal(created.ok, true, JSON.stringify(created));
  const id = created.data.id;
  let status = created.data.status;
  for (let i = 0; i < 60 && status !== "approved"; i++) {
    await new Promise((r) => setTimeout(r, 250));
    status = (await fetch(`${base}/v1/facturas/${id}`, {
      headers: { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" },
    }).then((r) => r.json())).data.status;
  }
  assert.equal(status, "approved");

  step("approved in the panel, KuDE download");
  await nav("Facturas");
  await page.getByLabel("Estado").selectOption("approved");
  await page.getByRole("button", { name: "Filtrar" }).click();
  const row = page.locator("tbody tr", { hasText: created.data.numero });
  await row.locator(".badge.approved").waitFor();
  await shot("facturas");
  await row.getByRole("link").first().click();
  assert.match(await page.textContent("main"), /Aprobada/);
  // examples/factura.json names receptor.email and the server has no --smtp-url: the message is captured, shown whole.
  assert.match(await page.textContent("main"), /Correo al comprador/);
  assert.match(await page.textContent("main"), /Mensaje capturado para compras@nanduti\.com\.py/);
  await shot("factura");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Descargar KuDE (PDF)" }).click(),
  ]);
  const pdf = readFileSync(await download.path());
  assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
  assert.match(download.suggestedFilename(), /\.pdf$/);
  greens.push(await green());

  step("production webhook, test event and delivery log");
  await nav("Webhooks");
  assert.equal(await page.getByLabel("factura.approved (aprobada por SIFEN)").isChecked(), true);
  assert.equal(await page.getByLabel("factura.rejected (rechazada por SIFEN)").isChecked(), true);
  assert.equal(await page.getByLabel("factura.email_failed (correo al comprador fallido)").isChecked(), false);
  await page.getByLabel("URL HTTPS que recibirá los eventos").fill(hookUrl);
  await page.getByRole("button", { name: "Registrar webhook" }).click();
  assert.match(await page.locator("#secreto").inputValue(), /^whsec_/);
  await page.getByRole("button", { name: "Enviar evento de prueba" }).click();
  for (let i = 0; i < 40 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 250));
  assert.equal(JSON.parse(received[0]).type, "webhook.test");
  await new Promise((r) => setTimeout(r, 500));
  await page.goto(`${base}/panel/webhooks?entorno=produccion`);
  assert.match(await page.textContent("main"), /Entregado/);
  assert.match(await page.textContent("main"), /HTTP 200/);
  await shot("webhooks");
  greens.push(await green());

  step("live key");
  await nav("Claves API");
  await page.getByLabel(/Producción \(dk_live_\)/).check();
  await page.getByRole("button", { name: "Crear clave" }).click();
  assert.match(await page.locator("#nueva-clave").inputValue(), /^dk_live_/);
  await shot("clave-produccion");
  greens.push(await green());

  step("RUC enabled");
  await page.getByLabel("La SET habilitó mi RUC como facturador electrónico").check();
  await page.getByRole("button", { name: "Guardar" }).click();
  await page.waitForURL(`${base}/panel`);
  greens.push(await page.locator("ol.checklist li.ok").count());
  assert.match(await page.textContent("main"), /Todo listo/);
  await shot("preparacion-completa");

  step("set a password");
  await nav("Contraseña");
  await page.getByLabel("Contraseña nueva").fill("una contraseña larga");
  await page.getByLabel("Repita la contraseña").fill("una contraseña larga");
  await page.getByRole("button", { name: "Guardar contraseña" }).click();
  assert.match(await page.textContent("main"), /Contraseña guardada/);
  await shot("contrasena");

  step("own SMTP settings and the test button");
  await nav("Correo");
  await page.getByLabel(/^Remitente/).fill("Estudio Contable <facturas@estudio.example>");
  await page.getByLabel(/^Servidor SMTP/).fill("smtp://facturas%40estudio.example@127.0.0.1:9");
  await page.getByLabel(/^Contraseña del servidor SMTP/).fill("clave-del-correo");
  await page.getByRole("button", { name: "Guardar configuración" }).click();
  assert.match(await page.textContent("main"), /Configuración de correo guardada/);
  assert.doesNotMatch(await page.content(), /clave-del-correo/);
  // Nothing listens on port 9: the page shows the connection error (a real send, answered at once).
  await page.getByLabel("Enviar a").fill("yo@estudio.example");
  await page.getByRole("button", { name: "Enviar correo de prueba" }).click();
  assert.match(await page.textContent("main"), /No se pudo enviar el correo de prueba/);
  await shot("correo");

  console.log(`  panel: checklist green items after each step: ${greens.join(" → ")}`);
  for (let i = 1; i < greens.length; i++) assert.ok(greens[i] > greens[i - 1], `step ${i} turned no item green`);
  assert.equal(greens.at(-1), 7);
  assert.deepEqual(errors, [], "no page or console error");
  console.log(`  panel: OK (${n} screenshots in ${shots})`);
} catch (e) {
  await shot("fallo").catch(() => {});
  throw e;
} finally {
  await browser.close();
  hooks.close();
  rmSync(profileDir, { recursive: true, force: true });
}

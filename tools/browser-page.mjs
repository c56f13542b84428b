// Opens pages of a directory in headless Chromium (playwright-core driving the system's chromium, as
// bindings/node/test/demo.test.mjs does) over a throwaway static server, and fails unless each page writes
// "OK …" into #out without a page error. Used by scripts/packages-check.sh for the consumer project's pages.
//
//   node tools/browser-page.mjs <playwright-core dir> <root dir> <page> [<page>…]
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";

const [pwDir, root, ...pages] = process.argv.slice(2);
const { chromium } = await import(pathToFileURL(join(pwDir, "index.mjs")).href);
const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
  ".json": "application/json" };
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
  try {
    const body = await readFile(join(root, path));
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}/`;
const executablePath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
let failed = 0;
try {
  for (const page of pages) {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    await tab.goto(base + page);
    const out = await tab.waitForFunction(() => {
      const t = document.getElementById("out")?.textContent ?? "";
      return t.startsWith("OK") || t.startsWith("FAIL") ? t : null;
    }, null, { timeout: 30000 }).then((h) => h.jsonValue()).catch((e) => `FAIL ${e.message}`);
    const ok = out.startsWith("OK") && errors.length === 0;
    console.log(`${ok ? "ok  " : "FAIL"} ${page}: ${out}${errors.length ? ` (page errors: ${errors.join("; ")})` : ""}`);
    if (!ok) failed++;
    await tab.close();
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);

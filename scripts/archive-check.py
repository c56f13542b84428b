"""The month's archive against a real `kuatia serve` (scripts/archive-check.sh starts it): issues a few invoices over
HTTP (approved, one cancelled, one pending, one rejected, one emitted in another month, a receiver name with a comma
and quotes), then checks `kuatia archive` with independent tools: Python's zipfile and `unzip -t`, `kuatia verify`,
`xmlsec1 --verify` with the sandbox certificate on each XML, `qpdf --check` on each PDF, and index.csv read with
Python's csv module against what the API says of each invoice. A tampered copy must fail `kuatia verify`.

Arguments: KUATIA BASE KEY DATA WORK CERT ACCOUNT."""

import csv
import datetime
import hashlib
import io
import json
import subprocess
import sys
import urllib.request
import zipfile

KUATIA, BASE, KEY, DATA, WORK, CERT, ACCOUNT = sys.argv[1:8]
PY = datetime.timezone(datetime.timedelta(hours=-3))


def api(method, path, body=None):
    req = urllib.request.Request(
        BASE + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {KEY}",
            "X-Environment": "sandbox",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(req) as r:
        return json.load(r)["data"]


def run(*args, ok=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if ok and r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r


with open("examples/factura.json", encoding="utf-8") as f:
    REQUEST = json.load(f)

now = datetime.datetime.now(PY).replace(microsecond=0, tzinfo=None)
month = now.strftime("%Y-%m")
# A document emitted in another month, inside SIFEN's window (at most 30 days back, 5 days ahead).
other = now - datetime.timedelta(days=29)
if other.strftime("%Y-%m") == month:
    other = now + datetime.timedelta(days=4)
other_month = other.strftime("%Y-%m")


def create(simulate=None, fecha=None, name=None):
    body = json.loads(json.dumps(REQUEST))
    if simulate:
        body["_simulate"] = simulate
    if fecha:
        body["fecha"] = fecha.strftime("%Y-%m-%dT%H:%M:%S")
    if name:
        body["receptor"]["razon_social"] = name
    return api("POST", "/v1/facturas", body)["id"]


ids = [
    create("approved"),
    create("approved", name='Comercial "El Sol", S.A.'),
    create("approved"),
    create(),  # pending: the simulated SIFEN answers after an hour
    create("rejected"),
]
other_id = create("approved", fecha=other)
api("POST", f"/v1/facturas/{ids[2]}/cancel", {"motivo": "Error en los datos del receptor"})
invoices = {i: api("GET", f"/v1/facturas/{i}") for i in ids + [other_id]}
assert invoices[ids[2]]["status"] == "cancelled", invoices[ids[2]]["status"]
assert invoices[ids[3]]["status"] == "pending", invoices[ids[3]]["status"]
assert invoices[ids[4]]["status"] == "rejected", invoices[ids[4]]["status"]

out = f"{WORK}/{month}.zip"
made = json.loads(run(KUATIA, "archive", "--data", DATA, "--account", ACCOUNT, "--month", month, "--out", out).stdout)
assert made["documents"] == 5 and made["kudes"] == 3 and made["cancelled"] == 1, made

# kuatia verify: every sum and every signature, one report per member.
checked = json.loads(run(KUATIA, "verify", out).stdout)
assert checked["valid"] and checked["signatures"] == 5, checked
assert all(m["valid"] for m in checked["members"]), checked

# Independent readers of the zip.
run("unzip", "-tq", out)
z = zipfile.ZipFile(out)
assert z.testzip() is None
names = z.namelist()
assert names[0] == "index.csv" and names[-1] == "manifest.json", names
manifest = json.loads(z.read("manifest.json"))
assert manifest["mes"] == month and manifest["documentos"] == 5, manifest
listed = {f["nombre"]: f for f in manifest["archivos"]}
assert set(listed) == set(names) - {"manifest.json"}, (sorted(listed), names)
for name, entry in listed.items():
    data = z.read(name)
    assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"], name

z.extractall(f"{WORK}/unzipped")
expected_pdf = {invoices[i]["cdc"] for i in ids if invoices[i]["status"] in ("approved", "cancelled")}
assert {n[:-4] for n in names if n.endswith(".pdf")} == expected_pdf, names
assert {n[:-4] for n in names if n.endswith(".xml")} == {invoices[i]["cdc"] for i in ids}, names
for name in names:
    path = f"{WORK}/unzipped/{name}"
    if name.endswith(".xml"):
        r = run("xmlsec1", "--verify", "--id-attr:Id", "DE", "--pubkey-cert-pem", CERT, path, ok=False)
        assert r.returncode == 0, f"xmlsec1 refuses {name}: {r.stderr[-800:]}"
    elif name.endswith(".pdf"):
        run("qpdf", "--check", path)

# index.csv: RFC 4180, UTF-8, a header row, one row per document in creation order.
with open(f"{WORK}/unzipped/index.csv", encoding="utf-8", newline="") as f:
    rows = list(csv.DictReader(f))
assert [r["cdc"] for r in rows] == [invoices[i]["cdc"] for i in ids], rows
for r, i in zip(rows, ids):
    inv = invoices[i]
    assert r["numero"] == inv["numero"] and r["fecha_emision"] == inv["fecha_emision"], (r, inv)
    assert r["estado"] == inv["status"] and r["total"] == inv["total"] and r["moneda"] == "PYG", (r, inv)
    assert r["ruc_receptor"] == "80069563-1", r
    assert r["nombre_receptor"] == inv["receptor"]["razon_social"], (r, inv["receptor"])
    # examples/factura.json: 2 × 35 000 at 10 %, 3 × 21 000 at 5 %, 80 000 exempt.
    assert (r["subtotal_10"], r["iva_10"], r["subtotal_5"], r["iva_5"], r["exenta"]) == (
        "70000", "6364", "63000", "3000", "80000"), r
    cancelled = inv["status"] == "cancelled"
    assert r["anulada"] == ("si" if cancelled else "no"), r
    assert bool(r["fecha_anulacion"]) == cancelled, r
    assert r["kude"] == (f"{inv['cdc']}.pdf" if inv["cdc"] in expected_pdf else ""), r
assert rows[1]["nombre_receptor"] == 'Comercial "El Sol", S.A.', rows[1]

# The other month holds only the document emitted then.
out2 = f"{WORK}/{other_month}.zip"
run(KUATIA, "archive", "--data", DATA, "--account", ACCOUNT, "--month", other_month, "--out", out2)
run(KUATIA, "verify", out2)
z2 = zipfile.ZipFile(out2)
rows2 = list(csv.DictReader(io.StringIO(z2.read("index.csv").decode("utf-8"), newline="")))
assert [r["cdc"] for r in rows2] == [invoices[other_id]["cdc"]], rows2

# The same month from the API (GET /v1/archivo): the same index and documents, and it verifies too.
req = urllib.request.Request(BASE + f"/v1/archivo?mes={month}",
                             headers={"Authorization": f"Bearer {KEY}", "X-Environment": "sandbox"})
with urllib.request.urlopen(req) as r:
    assert r.headers["Content-Type"] == "application/zip", r.headers
    api_zip = f"{WORK}/api-{month}.zip"
    with open(api_zip, "wb") as f:
        f.write(r.read())
run(KUATIA, "verify", api_zip)
za = zipfile.ZipFile(api_zip)
assert za.namelist() == names and za.read("index.csv") == z.read("index.csv"), za.namelist()

# A member changed after the fact: kuatia verify refuses the archive and names the member.
tampered = f"{WORK}/tampered.zip"
victim = f"{invoices[ids[0]]['cdc']}.xml"
with zipfile.ZipFile(tampered, "w", zipfile.ZIP_DEFLATED) as t:
    for name in names:
        data = z.read(name)
        if name == victim:
            data = data.replace(b"<dCodSeg>", b"<dCodSeg>9", 1)
        t.writestr(name, data)
r = run(KUATIA, "verify", tampered, ok=False)
assert r.returncode == 1, (r.returncode, r.stdout[-500:])
bad = [m["file"] for m in json.loads(r.stdout)["members"] if not m["valid"]]
assert bad == [victim], bad

# More documents than an archive built in memory holds (500, the in-process faces' limit): `kuatia serve` writes it
# into a spool file and streams it, from the API and from the panel, with its length announced; nothing is left in
# the data directory. The same documents and index as `kuatia archive`.
import concurrent.futures
import http.client
import os
import urllib.parse

BIG = 520
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    list(pool.map(lambda _: create(), range(BIG - 5)))
out_big = f"{WORK}/big-{month}.zip"
made = json.loads(run(KUATIA, "archive", "--data", DATA, "--account", ACCOUNT, "--month", month, "--out",
                      out_big).stdout)
assert made["documents"] == BIG, made
zb = zipfile.ZipFile(out_big)


def fetch(path, headers, name):
    url = urllib.parse.urlsplit(BASE)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    conn.request("GET", path, headers=headers)
    r = conn.getresponse()
    assert r.status == 200, (path, r.status, r.read()[:500])
    assert r.getheader("Content-Type") == "application/zip", r.getheaders()
    assert r.getheader("Content-Disposition") == f'attachment; filename="kuatia-{month}.zip"', r.getheaders()
    length = int(r.getheader("Content-Length"))
    target = f"{WORK}/{name}"
    with open(target, "wb") as f:
        f.write(r.read())
    conn.close()
    assert os.path.getsize(target) == length, (length, os.path.getsize(target))
    run(KUATIA, "verify", target)
    zapi = zipfile.ZipFile(target)
    assert json.loads(zapi.read("manifest.json"))["documentos"] == BIG
    assert zapi.namelist() == zb.namelist() and zapi.read("index.csv") == zb.read("index.csv"), name
    return length


api_bytes = fetch(f"/v1/archivo?mes={month}", {"Authorization": f"Bearer {KEY}", "X-Environment": "sandbox"},
                  "api-big.zip")

# The panel's "Descargar archivo del mes": a one-time link, its sign-in, then the download with the session.
link = json.loads(run(KUATIA, "accounts", "panel-login", ACCOUNT, "--base-url", BASE, "--data", DATA).stdout)["link"]
token = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["token"][0]
url = urllib.parse.urlsplit(BASE)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
conn.request("POST", "/panel/entrar", body=urllib.parse.urlencode({"token": token}),
             headers={"Content-Type": "application/x-www-form-urlencoded"})
signed_in = conn.getresponse()
signed_in.read()
cookie = signed_in.getheader("Set-Cookie")
assert signed_in.status in (302, 303) and cookie, (signed_in.status, signed_in.getheaders())
conn.close()
fetch(f"/panel/archivo?mes={month}&entorno=sandbox", {"Cookie": cookie.split(";")[0]}, "panel-big.zip")
left = [n for n in os.listdir(DATA) if n.startswith(".archive-")]
assert not left, left

print(f"archive: {month}: 5 documents (3 KuDEs, 1 cancelled) verified by kuatia verify, xmlsec1, qpdf, zipfile, "
      f"unzip and csv, the API's the same; {other_month}: 1 document; a tampered member refused; {BIG} documents "
      f"streamed by kuatia serve ({api_bytes} bytes) from the API and the panel, the same as kuatia archive's")

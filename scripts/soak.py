#!/usr/bin/env python3
"""Soak run of `kuatia serve` (issue 33), driven by scripts/soak.sh, which builds kuatia and installs the plot's tools.

Starts `kuatia serve` on a free loopback port with a fresh data directory (SQLite, the simulated SIFEN of the sandbox
with its default timings, webhooks delivered to loopback over plain HTTP: --allow-private-webhooks
--insecure-webhooks-http, the flags scripts/api-fuzz.sh and the server tests use), registers a webhook to a receiver in
this process (a ThreadingHTTPServer on 127.0.0.1 that checks every signature and answers 500 to a share of the
deliveries, so the server's retries run), then sends a steady mixed load for --duration seconds at --rate requests per
second: creates (without a key, with a fresh Idempotency-Key, replays of a key, invalid bodies for a 422, some
approved or rejected at once by `_simulate`), lookups, lists (pages, cursors, filters), KuDE PDFs, signed XMLs,
cancellations, the webhook's delivery log, the numbering gaps. A share of the requests opens a connection of its own
(`Connection: close`), the rest share one kept-alive connection.

Every --sample seconds (and at the start and the end) one CSV row: the server's RSS (VmRSS) and peak (VmHWM), open file
descriptors, threads, the database's bytes (kuatia.sqlite3, its WAL, the whole data directory), the invoices stored,
the requests sent and their latency in the window, unexpected answers, webhook deliveries received, the server's CPU
seconds and the load average. At the end: every acknowledged invoice must be stored, the server must stop cleanly on
SIGTERM; then <out>/soak.json (first/last/max of each series, a flatness verdict) and <out>/soak.svg (matplotlib when
importable, else drawn by hand). Exit 1 when a check or a verdict fails. The RSS verdict is taken from the warm-up
(--warmup minutes) and, when the run gets there, from the first sample after the writer's document cache is full
(DOCUMENT_CACHE invoices), which then decides: until then RSS grows with the invoices read (docs/benchmarks.md, "Soak").
`--recheck` computes the verdict and the plot again from <out>'s files, without a run.
"""
import argparse
import collections
import csv
import hashlib
import hmac
import http.client
import http.server
import json
import os
import pathlib
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
DB_FILE = "kuatia.sqlite3"  # server/src/store.rs, DB_FILE

# The load mix: (operation, weight). Weights are shares of the requests, not of the time.
MIX = [
    ("create", 14),            # no key; the simulated SIFEN moves it pending → sent → approved (2 s, 5 s)
    ("create_key", 10),        # a fresh Idempotency-Key
    ("create_approved", 6),    # `_simulate: approved`: approved at once, for the KuDE and the cancellations
    ("create_rejected", 2),    # a receiver SIFEN's simulation rejects (SBX-RUC-RECEPTOR), after the timings
    ("replay", 4),             # an earlier key with its body: the same invoice, Idempotent-Replayed
    ("invalid", 5),            # 422 VALIDATION_ERROR (every finding at once)
    ("get", 20),
    ("list", 10),
    ("kude", 10),
    ("xml", 5),
    ("cancel", 4),
    ("deliveries", 2),
    ("gaps", 1),
    ("health", 1),
]

# The cancellation body (motive: 5–500 characters).
CANCEL = json.dumps({"motivo": "Anulada en la prueba de resistencia"}).encode()


def invoice(tag, simulate=None, ruc="80069563-1"):
    body = {
        "tipo_documento": 1,
        "receptor": {"ruc": ruc, "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [
            {"descripcion": f"Servicio {tag}", "cantidad": 1, "precio_unitario": 1100000, "iva": 10},
            {"descripcion": "Producto", "cantidad": 3, "precio_unitario": 55000, "iva": 5},
        ],
        "condicion_pago": 1,
    }
    if simulate:
        body["_simulate"] = simulate
    return json.dumps(body, separators=(",", ":")).encode()


INVALID = json.dumps({
    "tipo_documento": 1,
    "receptor": {"ruc": "80069563-9", "razon_social": ""},
    "items": [{"descripcion": "", "cantidad": 0, "precio_unitario": -1, "iva": 7}],
}).encode()


def parse_mix(text):
    """`create=3,get=1` → the weights given (other operations left out); empty → MIX."""
    if not text:
        return dict(MIX)
    mix = {}
    for part in text.split(","):
        op, _, weight = part.partition("=")
        if op.strip() not in dict(MIX):
            raise SystemExit(f"--mix: unknown operation {op!r} (one of {', '.join(dict(MIX))})")
        mix[op.strip()] = int(weight or 1)
    return mix


def parse_duration(text):
    """`1800`, `1800s`, `30m`, `1h` → seconds."""
    text = text.strip().lower()
    units = {"s": 1, "m": 60, "h": 3600}
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


# --- the webhook receiver -------------------------------------------------------------------------------------------

class Receiver:
    """Loopback webhook receiver: checks each delivery's signature, answers 500 to a share of them."""

    def __init__(self, fail_share, seed):
        self.secret = None
        self.fail_share = fail_share
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.posts = self.answered_500 = self.bad_signature = 0
        self.events = collections.Counter()  # event id → POSTs received
        self.delivered = set()  # event ids answered 2xx
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                ok_sig = receiver.verify(self.headers.get("Kuatia-Signature", ""), body)
                try:
                    event = json.loads(body)["id"]
                except (ValueError, KeyError, TypeError):
                    event = None
                with receiver.lock:
                    receiver.posts += 1
                    receiver.events[event] += 1
                    if not ok_sig:
                        receiver.bad_signature += 1
                    fail = receiver.rng.random() < receiver.fail_share
                    if fail:
                        receiver.answered_500 += 1
                    else:
                        receiver.delivered.add(event)
                status = 500 if fail else 204
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def verify(self, header, body):
        if self.secret is None:
            return False
        parts = [p.split("=", 1) for p in header.split(",") if "=" in p]
        t = next((v for k, v in parts if k.strip() == "t"), None)
        sigs = [v for k, v in parts if k.strip() == "v1"]
        if t is None or not sigs:
            return False
        mac = hmac.new(self.secret.encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()
        return any(hmac.compare_digest(mac, s) for s in sigs)

    def snapshot(self):
        with self.lock:
            return {
                "posts": self.posts,
                "answered_500": self.answered_500,
                "bad_signature": self.bad_signature,
                "events": len(self.events),
                "events_delivered": len(self.delivered),
                "retried_events": sum(1 for n in self.events.values() if n > 1),
            }


# --- the client -----------------------------------------------------------------------------------------------------

class Client:
    """HTTP/1.1 client of the server: one kept-alive connection, or a connection of its own per request."""

    def __init__(self, port, key):
        self.port, self.key = port, key
        self.conn = None

    def request(self, method, path, body=None, headers=None, fresh=False):
        """(status, headers dict, body bytes, seconds)."""
        h = {"Authorization": f"Bearer {self.key}", "X-Environment": "sandbox"}
        if body is not None:
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        if fresh:
            h["Connection"] = "close"
        for attempt in (1, 2):
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120) if fresh else self._kept()
            start = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=h)
                r = conn.getresponse()
                data = r.read()
                elapsed = time.perf_counter() - start
                if fresh or r.will_close:
                    conn.close()
                    if not fresh:
                        self.conn = None
                return r.status, {k.lower(): v for k, v in r.getheaders()}, data, elapsed
            except (http.client.HTTPException, OSError):
                conn.close()
                if not fresh:
                    self.conn = None
                # A kept-alive connection the server closed while idle: once more on a new one. Not for a POST
                # without a key (it could have been stored).
                if attempt == 2 or fresh or (method == "POST" and "Idempotency-Key" not in h):
                    raise
        raise AssertionError("unreachable")

    def _kept(self):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        return self.conn

    def json(self, method, path, body=None):
        status, _, data, _ = self.request(method, path, body)
        return status, json.loads(data) if data else None


class Load:
    """The mixed load: one request at a time, on a fixed schedule of --rate per second."""

    EXPECTED = {
        "create": {201}, "create_key": {201}, "create_approved": {201}, "create_rejected": {201},
        "replay": {201}, "invalid": {422}, "get": {200}, "list": {200}, "kude": {200}, "xml": {200},
        "cancel": {200}, "deliveries": {200}, "gaps": {200}, "health": {200},
    }

    def __init__(self, client, rate, fresh_share, seed, webhook_id, mix):
        self.client, self.rate, self.fresh_share = client, rate, fresh_share
        self.rng = random.Random(seed)
        self.webhook_id = webhook_id
        self.ops = [op for op, w in mix.items() for _ in range(w)]
        self.ids = collections.deque(maxlen=5000)       # invoices created, for lookups
        self.approved = collections.deque(maxlen=2000)  # approved at once, for KuDE and cancellations
        self.keys = collections.deque(maxlen=2000)      # (key, body, invoice id) for replays
        self.acked = set()                              # every id a 201 named
        self.lock = threading.Lock()
        self.counts = collections.Counter()             # (op, status)
        self.unexpected = []                            # first answers outside EXPECTED
        self.unexpected_total = 0
        self.window = []                                # latencies since the last sample
        self.sent = 0
        self.seq = 0
        self.stop = threading.Event()

    def run(self, seconds):
        start = time.monotonic()
        i = 0
        while not self.stop.is_set():
            due = start + i / self.rate
            now = time.monotonic()
            if due - start >= seconds:
                break
            if due > now:
                time.sleep(due - now)
            elif now - due > 1:
                # Behind by more than a second (a slow answer, a busy machine): drop the backlog, no burst after.
                i = int((now - start) * self.rate)
            i += 1
            self.one(self.rng.choice(self.ops))

    def one(self, op):
        fresh = self.rng.random() < self.fresh_share
        self.seq += 1
        tag = f"s{self.seq}"
        method, path, body, headers = "GET", None, None, {}
        key = None
        if op in ("create", "create_key", "create_approved", "create_rejected"):
            method, path = "POST", "/v1/facturas"
            body = invoice(tag, "approved" if op == "create_approved" else None,
                           "80000005-6" if op == "create_rejected" else "80069563-1")
            if op == "create_key":
                key = f"soak-{os.getpid()}-{tag}"
                headers["Idempotency-Key"] = key
        elif op == "replay":
            if not self.keys:
                return self.one("create_key")
            key, body, _ = self.rng.choice(self.keys)
            method, path = "POST", "/v1/facturas"
            headers["Idempotency-Key"] = key
        elif op == "invalid":
            method, path, body = "POST", "/v1/facturas", INVALID
        elif op in ("get", "xml"):
            if not self.ids:
                return self.one("create")
            inv = self.rng.choice(self.ids)
            path = f"/v1/facturas/{inv}" + ("/xml" if op == "xml" else "")
        elif op == "kude":
            if not self.approved:
                return self.one("create_approved")
            path = f"/v1/facturas/{self.rng.choice(self.approved)}/kude"
        elif op == "cancel":
            if len(self.approved) < 20:
                return self.one("create_approved")
            # The oldest approved invoice: it leaves the pool, so each is cancelled once.
            method, path, body = "POST", f"/v1/facturas/{self.approved.popleft()}/cancel", CANCEL
        elif op == "list":
            path = self.rng.choice([
                "/v1/facturas?per_page=20&page=1",
                "/v1/facturas?limit=50&order=desc",
                "/v1/facturas?status=approved&limit=20",
                "/v1/facturas?status=cancelled&per_page=10",
                "/v1/facturas?receptor_ruc=80069563-1&limit=10&order=asc",
            ])
        elif op == "deliveries":
            path = f"/v1/webhooks/{self.webhook_id}/deliveries?per_page=20"
        elif op == "gaps":
            path = "/v1/numbering/gaps"
        elif op == "health":
            path = "/v1/health"
        try:
            status, hdrs, data, elapsed = self.client.request(method, path, body, headers, fresh)
        except (http.client.HTTPException, OSError) as e:
            status, hdrs, data, elapsed = f"error:{type(e).__name__}", {}, b"", 0.0
        with self.lock:
            self.sent += 1
            self.counts[(op, status)] += 1
            if elapsed:
                self.window.append(elapsed)
            ok = status in self.EXPECTED[op]
            if ok and op == "replay" and hdrs.get("idempotent-replayed") != "true":
                ok = False
            if not ok:
                self.unexpected_total += 1
                if len(self.unexpected) < 50:
                    self.unexpected.append({"op": op, "path": path, "status": status, "body": data[:300].decode(
                        "utf-8", "replace")})
        if status == 201:
            inv = json.loads(data)["data"]["id"]
            if op == "replay":
                if inv != next((i for k, _, i in self.keys if k == key), inv):
                    with self.lock:
                        self.unexpected_total += 1
                        self.unexpected.append({"op": op, "path": path, "status": "replay returned another id"})
                return
            self.ids.append(inv)
            self.acked.add(inv)
            if op == "create_approved":
                self.approved.append(inv)
            if op == "create_key":
                self.keys.append((key, body, inv))

    def take_window(self):
        with self.lock:
            w, self.window = sorted(self.window), []
            sent = self.sent
        pct = (lambda p: round(w[min(len(w) - 1, int(p * len(w)))] * 1000, 2)) if w else (lambda p: None)
        return sent, len(w), pct(0.5), pct(0.99), (round(w[-1] * 1000, 2) if w else None)


# --- sampling -------------------------------------------------------------------------------------------------------

def proc_status(pid):
    out = {}
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM", "RssAnon", "Threads"):
            out[k] = int(v.split()[0])
    return out


def cpu_seconds(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def size(path):
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


COLUMNS = ["minute", "elapsed_s", "rss_kib", "hwm_kib", "anon_kib", "fds", "threads", "db_bytes", "wal_bytes",
           "data_dir_bytes", "invoices", "requests", "window_requests", "p50_ms", "p99_ms", "max_ms", "unexpected",
           "webhook_posts", "webhook_500", "server_cpu_s", "loadavg1"]


def sample(pid, data, client, load, receiver, started):
    st = proc_status(pid)
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    db, wal = size(data / DB_FILE), size(data / f"{DB_FILE}-wal")
    total = sum(size(p) for p in data.rglob("*") if p.is_file())
    status, v = client.json("GET", "/v1/facturas?per_page=1&page=1")
    invoices = v["meta"]["total"] if status == 200 else None
    sent, n, p50, p99, mx = load.take_window()
    elapsed = time.monotonic() - started
    return {
        "minute": round(elapsed / 60, 2), "elapsed_s": round(elapsed, 1), "rss_kib": st["VmRSS"],
        "hwm_kib": st["VmHWM"], "anon_kib": st["RssAnon"], "fds": fds, "threads": st["Threads"], "db_bytes": db,
        "wal_bytes": wal, "data_dir_bytes": total, "invoices": invoices, "requests": sent, "window_requests": n,
        "p50_ms": p50, "p99_ms": p99, "max_ms": mx, "unexpected": load.unexpected_total,
        "webhook_posts": receiver.snapshot()["posts"], "webhook_500": receiver.snapshot()["answered_500"],
        "server_cpu_s": round(cpu_seconds(pid), 2),
        "loadavg1": float(pathlib.Path("/proc/loadavg").read_text().split()[0]),
    }


# --- the verdict ----------------------------------------------------------------------------------------------------

def series_stats(rows, col):
    vals = [r[col] for r in rows if r[col] is not None]
    return {"first": vals[0], "last": vals[-1], "min": min(vals), "max": max(vals)} if vals else None


# Invoices whose document parts one engine keeps (service/src/document.rs, CAPACITY): until the writer has read that
# many, its cache grows with the invoices; then it keeps between half and all of them. The two readers
# (server/src/readers.rs) keep as many each.
DOCUMENT_CACHE = 4096


def rss_check(rows, base, limit_pct):
    """RSS from the sample `base` to the end: growth, least-squares slope, bytes per invoice added."""
    steady = [r for r in rows if r["minute"] >= base["minute"]]
    last = rows[-1]
    growth = (last["rss_kib"] - base["rss_kib"]) / base["rss_kib"] * 100
    d_inv = last["invoices"] - base["invoices"]
    xs, ys = [r["elapsed_s"] / 3600 for r in steady], [r["rss_kib"] for r in steady]
    slope = 0.0
    if len(xs) > 1:
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        den = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0
    return {"from_minute": base["minute"], "from_invoices": base["invoices"], "from_kib": base["rss_kib"],
            "to_kib": last["rss_kib"], "max_kib": max(ys), "growth_pct": round(growth, 2),
            "slope_kib_per_hour": round(slope), "limit_pct": limit_pct,
            "bytes_per_invoice_added": round((last["rss_kib"] - base["rss_kib"]) * 1024 / d_inv) if d_inv else None,
            "flat": growth <= limit_pct}


def verdict(rows, warmup_min, rss_pct, fd_tolerance, thread_tolerance, cache_invoices=DOCUMENT_CACHE):
    """Flatness from the first sample at or after `warmup_min` minutes to the end; RSS also from the first sample
    after the writer's document cache is full (`cache_invoices` stored), which decides when the run gets there with
    at least three samples after it."""
    base = next((r for r in rows if r["minute"] >= warmup_min), rows[0])
    steady = [r for r in rows if r["minute"] >= base["minute"]]
    fds = [r["fds"] for r in steady]
    threads = [r["threads"] for r in steady]
    dbs = [r["db_bytes"] + r["wal_bytes"] for r in steady]
    inv = [r["invoices"] for r in steady]
    d_inv = inv[-1] - inv[0]
    per_invoice = (dbs[-1] - dbs[0]) / d_inv if d_inv else None
    # Bytes per invoice of each half of the steady part: storage explained by the data grows with the invoices, so
    # both halves cost about the same per invoice.
    mid = len(steady) // 2
    halves = []
    for a, b in ((0, mid), (mid, len(steady) - 1)):
        di = inv[b] - inv[a]
        halves.append(round((dbs[b] - dbs[a]) / di) if di > 0 else None)
    db_ok = per_invoice is not None and all(h is not None and abs(h - per_invoice) <= 0.35 * per_invoice + 512
                                            for h in halves)
    full = [r for r in rows if r["minute"] >= base["minute"] and r["invoices"] > cache_invoices]
    checks = {
        "rss": rss_check(rows, base, rss_pct),
        "rss_after_caches": rss_check(rows, full[0], rss_pct) if len(full) >= 4 else None,
        "fds": {"min": min(fds), "max": max(fds), "tolerance": fd_tolerance,
                "flat": max(fds) - min(fds) <= fd_tolerance},
        "threads": {"min": min(threads), "max": max(threads), "tolerance": thread_tolerance,
                    "flat": max(threads) - min(threads) <= thread_tolerance},
        "db": {"from_bytes": dbs[0], "to_bytes": dbs[-1], "invoices_added": d_inv,
               "bytes_per_invoice": round(per_invoice) if per_invoice else None,
               "bytes_per_invoice_halves": halves, "explained_by_data": db_ok},
        "document_cache_invoices": cache_invoices,
    }
    rss = checks["rss_after_caches"] or checks["rss"]
    checks["rss_decided_by"] = "rss_after_caches" if checks["rss_after_caches"] else "rss"
    checks["flat"] = rss["flat"] and checks["fds"]["flat"] and checks["threads"]["flat"] and db_ok
    return checks


# --- the plot -------------------------------------------------------------------------------------------------------

def plot(rows, summary, path):
    title = (f"kuatia serve soak, {summary['commit'][:8]}, {summary['profile']} build, "
             f"{summary['duration_s'] // 60} min at {summary['rate']} req/s")
    mins = [r["minute"] for r in rows]
    rss = [r["rss_kib"] / 1024 for r in rows]
    fds = [r["fds"] for r in rows]
    threads = [r["threads"] for r in rows]
    db = [(r["db_bytes"] + r["wal_bytes"]) / 1e6 for r in rows]
    inv = [r["invoices"] for r in rows]
    try:
        import matplotlib
        matplotlib.use("svg")
        import matplotlib.pyplot as plt
    except ImportError:
        return plot_by_hand(title, mins, rss, fds, threads, db, inv, path)
    plt.rcParams["svg.hashsalt"] = "kuatia-soak"
    plt.rcParams["svg.fonttype"] = "none"
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    axes[0].plot(mins, rss, marker=".", color="tab:blue")
    axes[0].set_ylabel("RSS (MiB)")
    axes[0].set_ylim(0, max(rss) * 1.25)
    axes[1].plot(mins, fds, marker=".", color="tab:green", label="open file descriptors")
    axes[1].plot(mins, threads, marker=".", color="tab:purple", label="threads")
    axes[1].set_ylim(0, max(max(fds), max(threads)) * 1.4)
    axes[1].legend(loc="lower right")
    axes[2].plot(mins, db, marker=".", color="tab:red", label="database + WAL (MB)")
    axes[2].set_ylabel("MB")
    twin = axes[2].twinx()
    twin.plot(mins, inv, color="tab:gray", linestyle="--", label="invoices")
    twin.set_ylabel("invoices")
    axes[2].legend(loc="upper left")
    twin.legend(loc="lower right")
    axes[2].set_xlabel("minutes")
    full = next((r["minute"] for r in rows if r["invoices"] and r["invoices"] > DOCUMENT_CACHE), None)
    for a in axes:
        a.grid(alpha=0.3)
        if full is not None:
            a.axvline(full, color="tab:orange", linestyle=":", linewidth=1)
    if full is not None:
        axes[0].annotate(f"{DOCUMENT_CACHE} invoices: the writer's document cache is full", (full, 0),
                         xytext=(4, 6), textcoords="offset points", fontsize=8, color="tab:orange")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    return "matplotlib " + matplotlib.__version__


def plot_by_hand(title, mins, rss, fds, threads, db, inv, path):
    w, h, left, pad = 760, 640, 70, 30
    panels = [("RSS (MiB)", [(rss, "#1f77b4")]), ("fds (green), threads (purple)", [(fds, "#2ca02c"),
              (threads, "#9467bd")]), ("database + WAL (MB, red), invoices (gray, scaled)", [(db, "#d62728"),
              ([i * max(db) / max(max(inv), 1) for i in inv], "#7f7f7f")])]
    ph = (h - 2 * pad) / len(panels)
    xmax = max(mins) or 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
           f'font-size="11"><rect width="100%" height="100%" fill="white"/>',
           f'<text x="{w / 2}" y="16" text-anchor="middle">{title}</text>']
    for k, (label, lines) in enumerate(panels):
        top = pad + k * ph
        bottom = top + ph - 25
        ymax = max(max(v) for v, _ in lines) * 1.25 or 1
        out.append(f'<rect x="{left}" y="{top}" width="{w - left - 20}" height="{bottom - top}" fill="none" '
                   f'stroke="#999"/><text x="{left + 5}" y="{top + 14}">{label}</text>'
                   f'<text x="{left - 5}" y="{top + 10}" text-anchor="end">{ymax:.0f}</text>'
                   f'<text x="{left - 5}" y="{bottom}" text-anchor="end">0</text>')
        for vals, color in lines:
            pts = " ".join(f"{left + m / xmax * (w - left - 20):.1f},{bottom - v / ymax * (bottom - top):.1f}"
                           for m, v in zip(mins, vals))
            out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    out.append(f'<text x="{w / 2}" y="{h - 5}" text-anchor="middle">minutes (0–{xmax:.0f})</text></svg>')
    pathlib.Path(path).write_text("\n".join(out) + "\n")
    return "by hand"


# --- main -----------------------------------------------------------------------------------------------------------

def ok(summary):
    return (summary["verdict"]["flat"] and not summary["lost"] and summary["unexpected_total"] == 0
            and summary["server_exit"] == 0 and summary["webhooks"]["bad_signature"] == 0)


def recheck(out, a):
    """The verdict and the plot again from <out>/soak.csv, the rest of <out>/soak.json kept."""
    with open(out / "soak.csv") as f:
        rows = [{k: (float(v) if "." in v else int(v)) if v not in ("", None) else None for k, v in r.items()}
                for r in csv.DictReader(f)]
    summary = json.loads((out / "soak.json").read_text())
    summary["verdict"] = verdict(rows, a.warmup, a.rss_limit, a.fd_tolerance, a.thread_tolerance)
    summary["plot"] = plot(rows, summary, out / "soak.svg")
    summary["ok"] = ok(summary)
    (out / "soak.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(summary["verdict"], indent=2))
    return 0 if summary["ok"] else 1


def start_server(binary, work):
    out, log = open(work / "serve.out", "wb"), open(work / "serve.log", "wb")
    proc = subprocess.Popen(
        [str(pathlib.Path(binary).resolve()), "serve", "--addr", "127.0.0.1:0", "--data", str(work / "data"),
         "--allow-private-webhooks", "--insecure-webhooks-http"],
        stdout=out, stderr=log, cwd=work, env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "info")})
    deadline = time.time() + 120
    while time.time() < deadline:
        text = (work / "serve.out").read_text()
        if text.strip():
            started = json.loads(text.splitlines()[0])
            return proc, int(started["listening"].rpartition(":")[2]), started["sandbox_key"]
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("kuatia serve did not come up:\n" + (work / "serve.log").read_text()[-2000:])


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.machine())
    mem = next(line.split()[1] for line in pathlib.Path("/proc/meminfo").read_text().splitlines()
               if line.startswith("MemTotal"))
    return {"cpus": os.cpu_count(), "cpu": cpu, "mem_gib": round(int(mem) / 2 ** 20, 1),
            "kernel": platform.release()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", help="the kuatia binary (needed for a run)")
    ap.add_argument("--profile", default="release", help="its cargo profile, for the report")
    ap.add_argument("--duration", default="30m", help="seconds, or 30m, 1h")
    ap.add_argument("--rate", type=float, default=10, help="requests per second")
    ap.add_argument("--sample", type=float, default=60, help="seconds between samples")
    ap.add_argument("--fresh-share", type=float, default=0.1, help="share of requests on a connection of their own")
    ap.add_argument("--webhook-fail", type=float, default=0.1, help="share of deliveries answered 500")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--mix", default="", help="op=weight,… instead of the default mix (MIX)")
    ap.add_argument("--no-webhook", action="store_true",
                    help="register no webhook (one webhook takes at most 4 deliveries per --tick-ms round: 8/s)")
    ap.add_argument("--warmup", type=float, default=5, help="minutes before the flatness baseline")
    ap.add_argument("--rss-limit", type=float, default=10, help="RSS growth allowed after the warm-up, %%")
    ap.add_argument("--fd-tolerance", type=int, default=6)
    ap.add_argument("--thread-tolerance", type=int, default=4)
    ap.add_argument("--out", default=str(ROOT / "target/soak"))
    ap.add_argument("--recheck", action="store_true", help="no run: the verdict and plot again from --out's files")
    a = ap.parse_args()
    if a.recheck:
        return recheck(pathlib.Path(a.out), a)
    if not a.bin:
        ap.error("--bin is needed for a run")
    duration = parse_duration(a.duration)
    mix = parse_mix(a.mix)
    commit, dirty = git("rev-parse", "HEAD"), bool(git("status", "--porcelain", "--untracked-files=no"))
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="kuatia-soak-"))
    receiver = Receiver(a.webhook_fail, a.seed)
    proc = None
    try:
        proc, port, key = start_server(a.bin, work)
        client = Client(port, key)
        for _ in range(600):
            try:
                if client.request("GET", "/v1/health")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        hook_id = None
        if not a.no_webhook:
            status, hook = client.json("POST", "/v1/webhooks", json.dumps({
                "url": f"https://127.0.0.1:{receiver.port}/kuatia",
                "events": ["factura.approved", "factura.rejected", "factura.cancelled"],
                "description": "soak receiver"}).encode())
            if status != 201:
                raise RuntimeError(f"webhook registration: {status} {hook}")
            receiver.secret, hook_id = hook["data"]["secret"], hook["data"]["id"]
        elif "deliveries" in mix:
            del mix["deliveries"]
        load = Load(Client(port, key), a.rate, a.fresh_share, a.seed, hook_id, mix)
        sampler = Client(port, key)
        started = time.monotonic()
        csv_path = out / "soak.csv"
        rows = []
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()

            def record():
                row = sample(proc.pid, work / "data", sampler, load, receiver, started)
                rows.append(row)
                w.writerow(row)
                f.flush()
                print(f"soak: {row['minute']:6.2f} min  rss {row['rss_kib'] / 1024:7.1f} MiB  fds {row['fds']:3d}  "
                      f"threads {row['threads']:3d}  db {(row['db_bytes'] + row['wal_bytes']) / 1e6:7.2f} MB  "
                      f"invoices {row['invoices']:6d}  p99 {row['p99_ms']} ms  unexpected {row['unexpected']}",
                      flush=True)

            record()
            runner = threading.Thread(target=load.run, args=(duration,), daemon=True)
            runner.start()
            n = 1
            while runner.is_alive():
                runner.join(timeout=max(0.0, started + n * a.sample - time.monotonic()))
                if time.monotonic() >= started + n * a.sample:
                    if proc.poll() is not None:
                        raise RuntimeError(f"kuatia serve exited ({proc.returncode}) during the run")
                    record()
                    n += 1
            # The simulated SIFEN's last answers (5 s) and their first deliveries, then the last sample.
            time.sleep(8)
            record()

        # Every acknowledged invoice is stored, once.
        stored, cursor = set(), None
        while True:
            q = "/v1/facturas?limit=100&order=asc" + (f"&starting_after={cursor}" if cursor else "")
            status, page = sampler.json("GET", q)
            if status != 200:
                raise RuntimeError(f"GET {q}: {status}")
            stored.update(i["id"] for i in page["data"])
            if not page["meta"]["has_more"]:
                break
            cursor = page["meta"]["next_cursor"]
        lost = sorted(load.acked - stored)

        proc.send_signal(signal.SIGTERM)
        try:
            exit_code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            exit_code = "killed after 60 s"
        stopped = (work / "serve.out").read_text().splitlines()[-1]

        summary = {
            "commit": commit, "dirty": dirty,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine(),
            "profile": a.profile, "duration_s": duration, "rate": a.rate, "sample_s": a.sample,
            "fresh_connection_share": a.fresh_share, "webhook_fail_share": a.webhook_fail,
            "mix": mix, "requests": load.sent,
            "answers": {f"{op} {status}": n for (op, status), n in sorted(load.counts.items(), key=str)},
            "unexpected_total": load.unexpected_total, "unexpected": load.unexpected,
            "acknowledged_invoices": len(load.acked), "stored_invoices": len(stored), "lost": lost[:20],
            "webhooks": receiver.snapshot(), "server_exit": exit_code, "server_stopped_line": stopped,
            "server_log_bytes": size(work / "serve.log"),
            "series": {c: series_stats(rows, c) for c in COLUMNS[2:] if c not in ("minute", "elapsed_s")},
            "verdict": verdict(rows, a.warmup, a.rss_limit, a.fd_tolerance, a.thread_tolerance),
        }
        summary["plot"] = plot(rows, summary, out / "soak.svg")
        summary["ok"] = ok(summary)
        (out / "soak.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        print(json.dumps({k: summary[k] for k in ("requests", "unexpected_total", "acknowledged_invoices",
                                                  "stored_invoices", "webhooks", "server_exit", "verdict", "ok")},
                         indent=2))
        print(f"soak: {csv_path}, {out / 'soak.json'}, {out / 'soak.svg'} (server files: {work})")
        return 0 if summary["ok"] else 1
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    sys.exit(main())

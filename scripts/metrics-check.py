"""`GET /metrics` of a real `kuatia serve` (issue 33), run by scripts/metrics-check.sh.

Starts `kuatia serve` (SQLite in a fresh data directory, or PostgreSQL with `--database URL`) with the simulated SIFEN
and the metrics listener on a free loopback port, scrapes it, makes a known set of requests (creates that stay
pending, approved and rejected ones, a 422, a 404 on a known route and one on no route, a 405, a 401), lets the
webhook worker deliver the approvals to a receiver on loopback and fail to deliver them to a closed port, scrapes
again, and checks every figure moved exactly as the requests did. Both scrapes are parsed by the Prometheus project's Python client: the Prometheus text format
(0.0.4, the default answer) with `prometheus_client.parser`, and OpenMetrics 1.0 (asked for with `Accept`) with
`prometheus_client.openmetrics.parser`; both must give the same samples. Exits non-zero on the first failed check.

    python3 metrics-check.py KUATIA_BINARY WORK_DIR [--database URL [--database-ca FILE]]
"""

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics,
)
from prometheus_client.parser import text_string_to_metric_families as parse_text

HANG_GUARD = 60  # seconds: the longest any wait may take before the check fails (never a timing assertion)


def fail(message):
    print(f"metrics check FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """A `kuatia serve` child process and its addresses."""

    def __init__(self, binary, work, extra):
        self.log = open(os.path.join(work, "serve.log"), "wb")
        self.proc = subprocess.Popen(
            [binary, "serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
             "--data", os.path.join(work, "data"), "--tick-ms", "100",
             # The simulated SIFEN moves nothing by itself during the check: states change only by the requests.
             "--sandbox-send-after", "3600", "--sandbox-answer-after", "3600",
             "--allow-private-webhooks", "--insecure-webhooks-http", *extra],
            stdout=subprocess.PIPE, stderr=self.log, env={**os.environ, "RUST_LOG": "info"})
        line = self.proc.stdout.readline()
        if not line:
            fail(f"kuatia serve did not start (log: {self.log.name})")
        started = json.loads(line)
        self.base = f"http://{started['listening']}"
        self.metrics = f"http://{started['metrics']}/metrics"
        self.key = started["sandbox_key"]
        if not self.key:
            fail("a fresh data directory gives its sandbox key at the first start")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("kuatia serve did not stop on SIGTERM")

    def call(self, method, path, body=None, key=True):
        """One request to the public listener: (status, parsed JSON body or None)."""
        headers = {"X-Environment": "sandbox", "Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {self.key}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=HANG_GUARD) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, None


class Receiver(http.server.BaseHTTPRequestHandler):
    """A webhook receiver on loopback: takes every POST (200), counts them."""

    received = 0

    def do_POST(self):  # noqa: N802 (the name http.server calls)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Receiver.received += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def scrape(url):
    """Both formats, parsed and compared: {(sample name, frozenset of labels): value}."""
    def get(accept):
        req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
        with urllib.request.urlopen(req, timeout=HANG_GUARD) as r:
            return r.headers.get("Content-Type", ""), r.read().decode()

    text_type, text = get(None)
    if not text_type.startswith("text/plain; version=0.0.4"):
        fail(f"the default answer is the Prometheus text format, got {text_type!r}")
    om_type, om = get("application/openmetrics-text; version=1.0.0")
    if not om_type.startswith("application/openmetrics-text; version=1.0.0"):
        fail(f"OpenMetrics asked for, got {om_type!r}")

    def samples(families):
        out = {}
        for family in families:
            if not family.name.startswith("kuatia_"):
                fail(f"metric {family.name} lacks the kuatia_ prefix")
            for s in family.samples:
                # The classic parser reads `le="1"`, OpenMetrics `le="1.0"`: compared as numbers.
                labels = {k: (str(float(v)) if k == "le" else v) for k, v in s.labels.items()}
                out[(s.name, frozenset(labels.items()))] = s.value
        return out

    # The same samples in both formats. The server goes on (the webhook worker, the ages' clock) between two reads:
    # a pair is compared when a second classic read, after the OpenMetrics one, found nothing moved.
    deadline = time.monotonic() + HANG_GUARD
    while True:
        classic = samples(parse_text(text))
        openmetrics = samples(parse_openmetrics(om))
        _, again = get(None)
        if samples(parse_text(again)) == classic:
            break
        if time.monotonic() > deadline:
            fail(f"the figures never held still for two reads in {HANG_GUARD} s")
        text = again
        _, om = get("application/openmetrics-text; version=1.0.0")
    if classic != openmetrics:
        diff = set(classic.items()) ^ set(openmetrics.items())
        fail(f"the two formats disagree: {sorted(diff, key=str)[:6]}")
    return classic


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests_total(samples, route, status, method):
    return value(samples, "kuatia_http_requests_total", method=method, route=route, status=str(status))


def expect(what, got, want):
    if got != want:
        fail(f"{what}: {got}, expected {want}")
    print(f"ok  {what} = {got}")


def invoice(simulate=None, items=True):
    body = {"tipo_documento": 1, "receptor": {"ruc": "80069563-1", "razon_social": "Cliente"},
            "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 110000, "iva": 10}]
            if items else []}
    if simulate:
        body["_simulate"] = simulate
    return body


def main():
    binary, work = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    server = Server(binary, work, extra)
    try:
        check(server)
    finally:
        server.stop()


def check(server):
    # The public listener has no metrics: /metrics is a path no route has there.
    status, _ = server.call("GET", "/metrics", key=False)
    expect("GET /metrics on the public listener", status, 404)
    before = scrape(server.metrics)

    closed = free_port()  # nothing listens there: every delivery attempt fails to connect
    status, hook = server.call("POST", "/v1/webhooks", {
        "url": f"https://127.0.0.1:{closed}/hook", "events": ["factura.approved"]})
    expect("webhook registered (nothing listening)", status, 201)
    # A receiver that takes every delivery (plain HTTP on loopback: --insecure-webhooks-http).
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    status, hook = server.call("POST", "/v1/webhooks", {
        "url": f"https://127.0.0.1:{receiver.server_address[1]}/hook", "events": ["factura.approved"]})
    expect("webhook registered (a receiver)", status, 201)
    created = {"pending": 3, "approved": 2, "rejected": 1}
    for state, n in created.items():
        for _ in range(n):
            status, body = server.call("POST", "/v1/facturas", invoice(None if state == "pending" else state))
            if status != 201 or body["data"]["status"] != state:
                fail(f"create ({state}): {status} {body}")
    status, body = server.call("POST", "/v1/facturas", invoice(items=False))
    expect("an invoice without items", status, 422)
    expect("GET of an unknown invoice", server.call("GET", "/v1/facturas/fact_nope")[0], 404)
    expect("GET of an unknown invoice, again", server.call("GET", "/v1/facturas/fact_other")[0], 404)
    expect("GET of no route", server.call("GET", "/v1/nothing/here")[0], 404)
    expect("PUT on the invoices", server.call("PUT", "/v1/facturas", {})[0], 405)
    expect("a list without a key", server.call("GET", "/v1/facturas", key=False)[0], 401)

    # The webhook worker delivers both approvals to the receiver and tries them on the closed port (failing to
    # connect): waited for, with a hang guard.
    deadline = time.monotonic() + HANG_GUARD
    while True:
        after = scrape(server.metrics)
        tried = value(after, "kuatia_webhook_delivery_attempts_total", outcome="connect")
        delivered = value(after, "kuatia_webhook_delivery_attempts_total", outcome="delivered")
        pending = value(after, "kuatia_webhook_deliveries_pending")
        if tried >= created["approved"] and delivered >= created["approved"] and pending == created["approved"]:
            break
        if time.monotonic() > deadline:
            fail(f"in {HANG_GUARD} s the webhook worker made {tried} failed attempts, {delivered} deliveries "
                 f"({pending} still pending)")
        time.sleep(0.1)
    receiver.shutdown()

    def moved(route, status, method):
        return requests_total(after, route, status, method) - requests_total(before, route, status, method)

    expect("POST /v1/webhooks 201", moved("/v1/webhooks", 201, "POST"), 2)
    expect("POST /v1/facturas 201", moved("/v1/facturas", 201, "POST"), sum(created.values()))
    expect("POST /v1/facturas 422", moved("/v1/facturas", 422, "POST"), 1)
    expect("GET /v1/facturas/{id} 404", moved("/v1/facturas/{id}", 404, "GET"), 2)
    expect("GET unmatched 404 (the unknown path)",
           moved("unmatched", 404, "GET"), 1)
    expect("PUT /v1/facturas 405", moved("/v1/facturas", 405, "PUT"), 1)
    expect("GET /v1/facturas 401", moved("/v1/facturas", 401, "GET"), 1)
    # No raw path leaks into a label.
    leaked = [k for k in after if any("fact_nope" in v or "nothing" in v for _, v in k[1])]
    expect("series naming a raw path", leaked, [])

    def histogram(suffix, **labels):
        return value(after, "kuatia_http_request_duration_seconds" + suffix, **labels)

    creates = {"method": "POST", "route": "/v1/facturas", "status": "201"}
    expect("create latency observations = creates", histogram("_count", **creates),
           requests_total(after, "/v1/facturas", 201, "POST"))
    expect("create latency +Inf bucket = creates", histogram("_bucket", le="inf", **creates),
           histogram("_count", **creates))
    if not histogram("_sum", **creates) > 0:
        fail("create latency sum is 0")

    for state, n in created.items():
        expect(f"kuatia_invoices sandbox {state}", value(after, "kuatia_invoices", environment="sandbox", state=state), n)
    age = value(after, "kuatia_invoice_oldest_age_seconds", environment="sandbox", state="pending")
    if not 0 <= age <= HANG_GUARD * 2:
        fail(f"oldest pending invoice age {age}")
    expect("oldest sent invoice age (none sent)",
           value(after, "kuatia_invoice_oldest_age_seconds", environment="sandbox", state="sent"), 0)
    expect("webhook deliveries pending (the closed port's; the receiver's were delivered)",
           value(after, "kuatia_webhook_deliveries_pending"), created["approved"])
    expect("delivered attempts", value(after, "kuatia_webhook_delivery_attempts_total", outcome="delivered"),
           created["approved"])
    expect("POSTs the receiver took", Receiver.received, created["approved"])
    expect("signing queue once the creates are answered", value(after, "kuatia_signing_queue_depth"), 0)
    for fault in ["full", "read_only", "busy", "io", "shutting_down", "other"]:
        expect(f"storage faults ({fault})", value(after, "kuatia_storage_faults_total", fault=fault), 0)
    expect("scrapes whose store query failed", value(after, "kuatia_metrics_store_failures_total"), 0)
    expect("SIFEN calls (sandbox only: the simulated SIFEN makes none)",
           sum(v for (n, _), v in after.items() if n == "kuatia_sifen_calls_total"), 0)

    # The ages grow with time: a second later the oldest pending invoice is at least a second older.
    time.sleep(1.1)
    later = scrape(server.metrics)
    grown = value(later, "kuatia_invoice_oldest_age_seconds", environment="sandbox", state="pending")
    if not grown >= age + 1:
        fail(f"oldest pending invoice age went from {age} to {grown} over 1.1 s")
    print(f"ok  oldest pending invoice age {age} s, then {grown} s")
    undelivered = value(later, "kuatia_webhook_oldest_undelivered_age_seconds")
    if not undelivered >= 1:
        fail(f"oldest undelivered webhook age {undelivered}")
    print(f"ok  oldest undelivered webhook age {undelivered} s")
    print(f"metrics check: {len(later)} samples, all as expected")


if __name__ == "__main__":
    main()

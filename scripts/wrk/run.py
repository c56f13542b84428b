#!/usr/bin/env python3
"""Load of `kuatia serve` by wrk (issue 15), driven by scripts/wrk-load.sh, which installs wrk and builds kuatia first.

Starts `target/release/kuatia serve` on a free loopback port with a fresh data directory (its first start prints the
sandbox key), waits for /v1/health, then:
  1. creates: wrk -t<threads> -c<connections> -d<create_s>s with scripts/wrk/create.lua (POST /v1/facturas, a unique
     Idempotency-Key each); then every stored invoice is listed through GET /v1/facturas (all pages) and checked
     against the 201s wrk saw: lost = acknowledged but not stored, duplicated = an item tag, id or numero stored twice,
     or one request acknowledged twice. Then the unacknowledged creates (in flight when wrk stopped) and a sample of the
     acknowledged ones are replayed with their key and body: each must return its stored invoice, nothing new stored;
  2. status lookups: wrk GET /v1/facturas/{id} over a few hundred of those ids for <lookup_s>s (scripts/wrk/lookup.lua).
Writes target/wrk-report.json; exits 1 when anything was lost or duplicated, a create was not answered 201, a replay
did not match or a lookup was not answered 200. The server and wrk share the machine's cores: the report says how many threads wrk used and the load average
before and after each phase.
"""
import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]


def loadavg():
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def cpu_seconds(pid):
    """User + system CPU seconds of a running process so far (/proc/<pid>/stat)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Api:
    def __init__(self, base, key):
        self.base, self.key = base, key

    def get(self, path):
        req = urllib.request.Request(self.base + path, headers={
            "Authorization": f"Bearer {self.key}", "X-Environment": "sandbox"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())

    def replay(self, tag):
        """The create of `tag` again, byte for byte as create.lua sent it: (status, invoice id)."""
        body = ('{"tipo_documento":1,"receptor":{"ruc":"80069563-1","razon_social":"Cliente Ejemplo S.A.",'
                '"email":"cliente@example.com"},"items":[{"descripcion":"Servicio ' + tag
                + '","cantidad":1,"precio_unitario":1100000,"iva":10}],"condicion_pago":1}').encode()
        req = urllib.request.Request(self.base + "/v1/facturas", data=body, method="POST", headers={
            "Authorization": f"Bearer {self.key}", "X-Environment": "sandbox", "Content-Type": "application/json",
            "Idempotency-Key": f"wrk-{tag}"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())["data"]["id"]
        except urllib.error.HTTPError as e:
            return e.code, None

    def total(self):
        return self.get("/v1/facturas?per_page=1&page=1")[1]["meta"]["total"]

    def all_invoices(self):
        out, page = [], 1
        while True:
            status, v = self.get(f"/v1/facturas?per_page=100&page={page}")
            if status != 200:
                raise RuntimeError(f"GET /v1/facturas page {page}: {status}")
            if not v["data"]:
                return out, v["meta"]["total"]
            out.extend(v["data"])
            page += 1


def start_server(work):
    """`kuatia serve` on 127.0.0.1:0; returns (process, base URL, sandbox key)."""
    out = open(work / "serve.out", "wb")
    log = open(work / "serve.log", "wb")
    proc = subprocess.Popen(
        [str(ROOT / "target/release/kuatia"), "serve", "--addr", "127.0.0.1:0", "--data", str(work / "data")],
        stdout=out, stderr=log, cwd=work)
    deadline = time.time() + 60
    while time.time() < deadline:
        text = (work / "serve.out").read_text()
        if text.strip():
            started = json.loads(text.splitlines()[0])
            base, key = f"http://{started['listening']}", started["sandbox_key"]
            if not key:
                raise RuntimeError("fresh data directory without a sandbox key")
            while time.time() < deadline:
                try:
                    with urllib.request.urlopen(base + "/v1/health", timeout=5) as r:
                        if r.status == 200:
                            return proc, base, key
                except OSError:
                    pass
                time.sleep(0.1)
            break
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("kuatia serve did not come up:\n" + (work / "serve.log").read_text()[-2000:])


def wrk(script, server_pid, base, path, threads, connections, seconds, env, out):
    """One wrk run; returns the JSON its Lua done() wrote, with the load average and the CPU seconds that wrk and the
    server used meanwhile."""
    before = loadavg()
    server_cpu, wrk_cpu = cpu_seconds(server_pid), children_cpu()
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s",
           "-s", f"scripts/wrk/{script}", base + path]
    run = subprocess.run(cmd, cwd=ROOT, env={**os.environ, **env, "KUATIA_WRK_OUT": str(out)},
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {run.returncode}\n{run.stdout}\n{run.stderr}")
    summary = json.loads(out.read_text())
    summary["loadavg_before"], summary["loadavg_after"] = before, loadavg()
    summary["server_cpu_s"] = round(cpu_seconds(server_pid) - server_cpu, 2)
    summary["wrk_cpu_s"] = round(children_cpu() - wrk_cpu, 2)
    summary["command"] = " ".join(cmd)
    return summary


def ms(us):
    return round(us / 1000, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2, help="wrk threads (they share the cores with the server)")
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--create-seconds", type=int, default=20)
    ap.add_argument("--lookup-seconds", type=int, default=10)
    ap.add_argument("--lookup-ids", type=int, default=300)
    ap.add_argument("--report", default=str(ROOT / "target/wrk-report.json"))
    a = ap.parse_args()
    version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()[0]
    work = pathlib.Path(tempfile.mkdtemp(prefix="kuatia-wrk-"))
    proc = None
    try:
        proc, base, key = start_server(work)
        api = Api(base, key)
        env = {"KUATIA_KEY": key, "KUATIA_WRK_RUN": f"c{os.getpid()}"}

        # 1. Creates, then everything stored against everything acknowledged.
        c = wrk("create.lua", proc.pid, base, "/v1/facturas", a.threads, a.connections, a.create_seconds, env,
                work / "create.json")
        # Requests still in flight when wrk stopped may yet be stored: wait until the count settles.
        last = -1
        while (n := api.total()) != last:
            last = n
            time.sleep(1)
        acked = [line.partition(" ")[::2] for line in (work / "create.json.acked").read_text().splitlines()]
        acked_tags = {tag for tag, _ in acked}
        invoices, meta_total = api.all_invoices()
        stored = {}  # item tag → ids of the invoices stored with it
        for inv in invoices:
            stored.setdefault(inv["items"][0]["descripcion"].removeprefix("Servicio "), []).append(inv["id"])
        ids = [inv["id"] for inv in invoices]
        numeros = [inv["numero"] for inv in invoices]
        # Lost: a 201 whose invoice is not stored under its request's tag.
        lost = sum(1 for tag, inv_id in acked if inv_id not in stored.get(tag, []))
        # Duplicated: one request stored twice, an id or numero listed twice, one request acknowledged twice.
        duplicated = (sum(len(v) - 1 for v in stored.values()) + (len(ids) - len(set(ids)))
                      + (len(numeros) - len(set(numeros))) + (len(acked) - len(acked_tags)))
        if len(acked) != c["expected"]:
            raise RuntimeError(f"wrk counted {c['expected']} 201s but recorded {len(acked)}")
        # Stored but never acknowledged: requests wrk had in flight when its time was up (at most one per connection).
        unacknowledged = set(stored) - acked_tags
        # Replays with the same key and body, as a client that got no answer (or wants it again) sends them: every
        # unacknowledged create and a sample of the acknowledged ones must come back as the stored invoice, and
        # nothing new may be stored.
        replayed = sorted(unacknowledged) + [tag for tag, _ in acked[::max(1, len(acked) // 100)]]
        mismatches = 0
        for tag in replayed:
            status, inv_id = api.replay(tag)
            if status != 201 or [inv_id] != stored.get(tag):
                print(f"replay wrk-{tag}: {status} {inv_id}, stored {stored.get(tag)}", file=sys.stderr)
                mismatches += 1
        if api.total() != meta_total:
            print(f"replays changed the number of invoices: {meta_total} → {api.total()}", file=sys.stderr)
            mismatches += 1
        create_s = c["duration_us"] / 1e6
        creates = {
            "threads": c["threads"], "connections": a.connections, "seconds": round(create_s, 2),
            "creates_201": c["expected"], "creates_per_s": round(c["expected"] / create_s, 1),
            "p50_ms": ms(c["latency_us"]["p50"]), "p90_ms": ms(c["latency_us"]["p90"]),
            "p99_ms": ms(c["latency_us"]["p99"]), "max_ms": ms(c["latency_us"]["max"]),
            "non_201": c["other"] + sum(c["socket_errors"].values()),
            "statuses": c["statuses"], "socket_errors": c["socket_errors"],
            "stored": len(invoices), "meta_total": meta_total, "lost": lost, "duplicated": duplicated,
            "unacknowledged_stored": len(unacknowledged), "replays": len(replayed), "replay_mismatches": mismatches,
            "server_cpu_s": c["server_cpu_s"], "wrk_cpu_s": c["wrk_cpu_s"],
            "server_cpu_us_per_create": round(c["server_cpu_s"] * 1e6 / max(1, c["requests"]), 1),
            "loadavg_before": c["loadavg_before"], "loadavg_after": c["loadavg_after"], "command": c["command"],
        }

        # 2. Status lookups over a spread of the stored ids, once the simulated SIFEN has answered every invoice: the
        #    lookups are measured on a server where nothing moves meanwhile.
        if not ids:
            raise RuntimeError("no invoice was stored: nothing to look up")
        settle_started = time.time()
        while time.time() - settle_started < 60:
            newest = api.get("/v1/facturas?per_page=1&page=1")[1]["data"][0]
            if newest["status"] in ("approved", "rejected"):
                break
            time.sleep(0.5)
        settled_after = round(time.time() - settle_started, 1)
        step = max(1, len(ids) // a.lookup_ids)
        sample = ids[::step][:a.lookup_ids]
        (work / "ids.txt").write_text("\n".join(sample) + "\n")
        lk = wrk("lookup.lua", proc.pid, base, "/v1/facturas", a.threads, a.connections, a.lookup_seconds,
                 {**env, "KUATIA_WRK_IDS": str(work / "ids.txt")}, work / "lookup.json")
        lookup_s = lk["duration_us"] / 1e6
        lookups = {
            "threads": lk["threads"], "connections": a.connections, "seconds": round(lookup_s, 2), "ids": len(sample),
            "waited_for_sandbox_s": settled_after,
            "lookups_200": lk["expected"], "lookups_per_s": round(lk["expected"] / lookup_s, 1),
            "p50_ms": ms(lk["latency_us"]["p50"]), "p99_ms": ms(lk["latency_us"]["p99"]),
            "max_ms": ms(lk["latency_us"]["max"]),
            "non_200": lk["other"] + sum(lk["socket_errors"].values()),
            "statuses": lk["statuses"], "socket_errors": lk["socket_errors"],
            "server_cpu_s": lk["server_cpu_s"], "wrk_cpu_s": lk["wrk_cpu_s"],
            "server_cpu_us_per_lookup": round(lk["server_cpu_s"] * 1e6 / max(1, lk["requests"]), 1),
            "loadavg_before": lk["loadavg_before"], "loadavg_after": lk["loadavg_after"], "command": lk["command"],
        }
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(work, ignore_errors=True)

    report = {
        # The headline figures, then each phase in full.
        "creates_per_s": creates["creates_per_s"], "p50_ms": creates["p50_ms"], "p99_ms": creates["p99_ms"],
        "non_201": creates["non_201"], "stored": creates["stored"], "lost": creates["lost"],
        "duplicated": creates["duplicated"], "replay_mismatches": creates["replay_mismatches"],
        "lookups_per_s": lookups["lookups_per_s"], "lookup_p99_ms": lookups["p99_ms"], "non_200": lookups["non_200"],
        "creates": creates, "lookups": lookups,
        "wrk": version, "server": "target/release/kuatia serve, SQLite, fresh data directory, default flags",
        "machine": {"cores": os.cpu_count(),
                    "note": "wrk and the server share these cores (and the machine may be shared): see each phase's "
                            "server_cpu_s and wrk_cpu_s against its seconds × cores, and its loadavg"},
    }
    pathlib.Path(a.report).write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrk creates: {creates['creates_per_s']}/s ({creates['threads']} wrk threads, {a.connections} connections, "
          f"{creates['seconds']} s), p50 {creates['p50_ms']} ms, p99 {creates['p99_ms']} ms, non-201 "
          f"{creates['non_201']}, server CPU {creates['server_cpu_s']} s, wrk CPU {creates['wrk_cpu_s']} s, stored {creates['stored']}, lost {creates['lost']}, duplicated "
          f"{creates['duplicated']}, replays {creates['replays']} ({creates['replay_mismatches']} mismatched) (loadavg {creates['loadavg_before']} → {creates['loadavg_after']})")
    print(f"wrk lookups: {lookups['lookups_per_s']}/s, p50 {lookups['p50_ms']} ms, p99 {lookups['p99_ms']} ms, non-200 "
          f"{lookups['non_200']}, server CPU {lookups['server_cpu_s']} s, wrk CPU {lookups['wrk_cpu_s']} s (loadavg {lookups['loadavg_before']} → {lookups['loadavg_after']})")
    print(f"written: {a.report}")
    bad = (creates["lost"] or creates["duplicated"] or creates["non_201"] or creates["replay_mismatches"]
           or creates["meta_total"] != creates["stored"] or lookups["non_200"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

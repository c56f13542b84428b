#!/usr/bin/env python3
"""Helpers of scripts/api-fuzz.sh (standard library only).

  api-fuzz.py prepare DOC IDS OUT   writes DOC with the live ids of IDS (JSON: operationId -> {parameter: [ids]})
                                    as `examples` of those path parameters, so that Schemathesis' example and
                                    coverage phases reach the resources the script created (random ids only find
                                    404s); nothing else of the document changes.
  api-fuzz.py statuses DOC LOG      fails unless every status DOC documents for an operation was answered to it at
                                    least once, and no operation answered a status it does not list (but 405,
                                    every route's answer to another method): LOG is `kuatia serve`'s log, one `request` line per answer with its
                                    method, path and status (requests Schemathesis' checks make count too).
"""
import json
import re
import sys
from collections import defaultdict


def prepare(doc_path, ids_path, out_path):
    with open(doc_path) as f:
        doc = json.load(f)
    with open(ids_path) as f:
        ids = json.load(f)
    seen = set()
    for item in doc["paths"].values():
        for op in item.values():
            for p in op.get("parameters", []):
                values = ids.get(op["operationId"], {}).get(p["name"])
                if values and p["in"] == "path":
                    p["examples"] = {f"live{i}": {"value": v} for i, v in enumerate(values)}
                    seen.add((op["operationId"], p["name"]))
    wanted = {(o, n) for o, params in ids.items() for n in params}
    if wanted - seen:
        sys.exit(f"api-fuzz: no such path parameter in {doc_path}: {sorted(wanted - seen)}")
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


def template_regex(path):
    return re.compile("^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(path)) + "/?$")


LINE = re.compile(r'method=(\S+) path=(\S+) status=(\d+)')


def statuses(doc_path, log_path):
    with open(doc_path) as f:
        doc = json.load(f)
    routes = []
    documented = {}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            routes.append((method.upper(), template_regex(path), op["operationId"]))
            documented[op["operationId"]] = {int(s) for s in op["responses"]}
    # Literal paths first (`/v1/openapi.json` before a `{id}` pattern of the same length).
    routes.sort(key=lambda r: r[1].pattern.count("[^/]+"))
    seen = defaultdict(set)
    answers = 0
    with open(log_path, errors="replace") as f:
        for line in f:
            m = LINE.search(re.sub(r"\x1b\[[0-9;]*m", "", line))
            if not m:
                continue
            method, path, status = m.group(1), m.group(2).split("?")[0], int(m.group(3))
            answers += 1
            for r_method, regex, op_id in routes:
                if r_method == method and regex.match(path):
                    seen[op_id].add(status)
                    break
    missing = {op: sorted(want - seen[op]) for op, want in documented.items() if want - seen[op]}
    # 405 (with `Allow`) is every route's answer to another method, in the document's description.
    extra = {op: sorted(seen[op] - want - {405}) for op, want in documented.items() if seen[op] - want - {405}}
    for op in sorted(documented):
        print(f"  {op:16} documented {sorted(documented[op])}, answered {sorted(seen[op])}")
    print(f"api-fuzz: {answers} answers in the server's log")
    if missing:
        print(f"api-fuzz: documented statuses never answered: {missing}", file=sys.stderr)
    if extra:
        print(f"api-fuzz: statuses answered that the document does not list: {extra}", file=sys.stderr)
    if missing or extra:
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "prepare":
        prepare(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "statuses":
        statuses(*sys.argv[2:])
    else:
        sys.exit(__doc__)

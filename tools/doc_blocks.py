#!/usr/bin/env python3
"""Every code block of the user documentation (README.md, docs/*.md) is tested; this tool says by what.

Each fenced block must follow a marker line `<!-- test: KIND -->`. KIND names the harness that runs it:

  rust          doctest: core/src/lib.rs includes the file (`cargo test --doc -p kuatia-core`)
  c             compiled with -Wall -Werror against the installed prefix and run (scripts/packages-check.sh);
                the first block of docs/c.md also by scripts/ffi-check.sh against the checkout's build
  python        executed by bindings/python/tests/test_readme.py (in the checkout and in the wheel's venv)
  go            wrapped in a test of a separate module built against the installed C library (packages-check);
                docs/go.md's first block must equal bindings/go/example_test.go's body (bindings/go/readme_test.go)
  java          compiled and run by bindings/java ReadmeExampleTest and by the Maven consumer (packages-check)
  php           run as a user's script by bindings/php/tests/DocsExampleTest.php (phpunit, scripts/bindings-check.sh)
  csharp        a whole program: compiled with mcs against bindings/dotnet's Kuatia.dll and run under Mono
                (scripts/dotnet-check.sh)
  js            run as an ES module in Node against the npm tarball installed into an empty project (packages-check)
  html          opened in headless Chromium from that project, no bundler (packages-check)
  json-request  `kuatia validate` accepts it (this tool, `run`)
  json-event    `kuatia sifen evento` signs it (this tool, `run`)
  text          a picture or a sample of output, ```text: nothing to run (rustdoc does not run it either)
  sh            executed (this tool, `run`): the blocks of one Markdown file run in order, each with `bash -e -o
                pipefail` in its own process group, in one fresh copy of the repository's tracked files (a clone
                with the working tree's edits; no ../shared, no kuatia-out/ beside it), with `kuatia` on PATH and
                `cargo run -p kuatia-cli --` answered by that binary; whatever a block leaves running (a server
                started with `&`) is stopped when the block ends; a block fails on a non-zero exit or after
                SH_TIMEOUT seconds. Before that, every block is parsed with `bash -n`, every `kuatia …` subcommand
                must exist and every script and example file it names must exist.
                `<!-- test: sh; not run: REASON -->` marks a block that cannot run here (the whole test command,
                a benchmark, an install into the system, a network download, production credentials): it gets the
                static checks only, and the tool lists it with its reason.

  doc_blocks.py check                      every block has a known marker; rust blocks sit in doctested files
  doc_blocks.py extract KIND DIR           writes each KIND block to DIR/<file>-<n>.<ext>, prints the paths
  doc_blocks.py run KUATIA_BIN             runs the json-request, json-event and sh harnesses (KUATIA_BIN: a built
                                           target/debug/kuatia; scripts/packages-check.sh builds it first)
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"rust": "rs", "c": "c", "python": "py", "go": "go", "java": "java", "php": "php", "csharp": "cs", "js": "mjs",
         "html": "html", "json-request": "json", "json-event": "json", "sh": "sh", "text": "txt"}
FENCE = re.compile(r"^```(\S*)\s*$")
MARKER = re.compile(r"^<!-- test: ([a-z-]+)(?:; not run: (.+?))? -->$")
# Seconds a shell block may run (a server it starts in the background is stopped at the end, not waited for).
SH_TIMEOUT = 300


def doc_files() -> list[Path]:
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def not_run_reason(path: Path, line: int) -> str | None:
    """The `not run: REASON` of the marker before the block that starts at `line` (1-based), if any."""
    lines = path.read_text(encoding="utf-8").splitlines()
    m = MARKER.match(lines[line - 2].strip()) if line >= 2 else None
    return m.group(2) if m else None


def blocks(path: Path):
    """Yields (kind or None, language, first line number, text) for every fenced block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        prev = lines[start - 1].strip() if start > 0 else ""
        marker = MARKER.match(prev)
        yield (marker.group(1) if marker else None), lang, start + 1, "\n".join(lines[start + 1 : j]) + "\n"
        i = j + 1


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def check() -> int:
    problems, counts = [], {}
    doctested = (ROOT / "core/src/lib.rs").read_text(encoding="utf-8")
    for f in doc_files():
        for kind, lang, line, _ in blocks(f):
            where = f"{rel(f)}:{line}"
            if kind is None:
                problems.append(f"{where}: a ```{lang} block without `<!-- test: KIND -->` on the line before")
            elif kind not in KINDS:
                problems.append(f"{where}: unknown test kind {kind!r} (known: {', '.join(KINDS)})")
            else:
                counts[kind] = counts.get(kind, 0) + 1
                reason = not_run_reason(f, line)
                if reason is not None and kind != "sh":
                    problems.append(f"{where}: only sh blocks may be marked `not run` ({kind} blocks always run)")
                if kind == "rust" and f'include_str!("../../{rel(f)}")' not in doctested:
                    problems.append(f"{where}: a rust block in a file core/src/lib.rs does not doctest")
                if lang == "" or (kind == "rust") != (lang == "rust"):
                    problems.append(f"{where}: ```{lang} does not match its test kind {kind}")
    for p in problems:
        print(p, file=sys.stderr)
    print("doc blocks: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    return 1 if problems else 0


def extract(kind: str, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for f in doc_files():
        for i, (k, _, _, text) in enumerate(blocks(f)):
            if k == kind:
                dest = out / f"{f.stem}-{i}.{KINDS[kind]}"
                dest.write_text(text, encoding="utf-8")
                print(dest)
                n += 1
    return 0 if n else 1


# A command at the start of a line or after ; | & ( (not an argument such as `pip install kuatia`).
CLI = re.compile(r"(?:^\s*|[;|&(]\s*)(?:kuatia|cargo run -p kuatia-cli --)\s+([a-z][a-z-]*)(?:\s+([a-z][a-z-]*))?")


def tracked_copy(dest: Path) -> None:
    """Copies the repository's tracked files (as they are in the working tree) to `dest`: what a clone holds."""
    dest.mkdir(parents=True)
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True).stdout
    pack = subprocess.Popen(["tar", "--null", "--files-from=-", "-cf", "-"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    unpack = subprocess.Popen(["tar", "-xf", "-"], cwd=dest, stdin=pack.stdout)
    assert pack.stdin is not None and pack.stdout is not None
    pack.stdout.close()
    pack.stdin.write(files)
    pack.stdin.close()
    if pack.wait() != 0 or unpack.wait() != 0:
        raise RuntimeError("could not copy the tracked files")


def tool_dir(tmp: Path, kuatia: str) -> Path:
    """A PATH directory with `kuatia` and a `cargo` that runs it for `cargo run -p kuatia-cli -- …` (built once)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "kuatia").symlink_to(Path(kuatia).resolve())
    real_cargo = shutil.which("cargo") or "cargo"
    shim = bin_dir / "cargo"
    shim.write_text(f"""#!/usr/bin/env bash
# doc_blocks.py: `cargo run -p kuatia-cli -- ARGS` is the kuatia binary built from this checkout; anything else is cargo.
if [ "$1 $2 $3 $4" = "run -p kuatia-cli --" ]; then shift 4; exec kuatia "$@"; fi
exec {shlex.quote(real_cargo)} "$@"
""", encoding="utf-8")
    shim.chmod(0o755)
    return bin_dir


def run_block(text: str, cwd: Path, env: dict, log: Path) -> tuple[bool, str]:
    """Runs one shell block in its own process group; kills the group (servers left running) afterwards."""
    with open(log, "wb") as out:
        # Output to a file, not a pipe: a server the block leaves in the background would hold a pipe open.
        proc = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", text], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=SH_TIMEOUT)
            why = f"exit {code}"
        except subprocess.TimeoutExpired:
            code, why = None, f"still running after {SH_TIMEOUT} s"
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            for _ in range(50):
                proc.poll()  # reap the block's shell, so only live members keep the group
                try:
                    os.killpg(proc.pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
        proc.wait()
    return code == 0, why


def run(kuatia: str) -> int:
    failures = 0
    help_cache: dict[tuple, bool] = {}
    executed, not_run = 0, []

    def subcommand_exists(words: tuple) -> bool:
        if words not in help_cache:
            r = subprocess.run([kuatia, *words, "--help"], capture_output=True, text=True)
            help_cache[words] = r.returncode == 0
        return help_cache[words]

    with tempfile.TemporaryDirectory(prefix="kuatia-doc-blocks-") as tmp_name:
        tmp = Path(tmp_name)
        env = {k: v for k, v in os.environ.items() if not k.startswith("KUATIA_")}
        env["PATH"] = f"{tool_dir(tmp, kuatia)}{os.pathsep}{env.get('PATH', '')}"
        (tmp / "home").mkdir()
        env["HOME"] = str(tmp / "home")
        for n, f in enumerate(doc_files()):
            clone = None
            for kind, _, line, text in blocks(f):
                where = f"{rel(f)}:{line}"
                if kind in ("json-request", "json-event"):
                    p = tmp / "block.json"
                    p.write_text(text, encoding="utf-8")
                    cmd = ([kuatia, "validate", str(p), "--at", "2025-03-10T10:11:00"] if kind == "json-request"
                           else [kuatia, "sifen", "evento", str(p), "--at", "2025-03-11T09:00:00"])
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    if r.returncode != 0:
                        failures += 1
                        print(f"{where}: {' '.join(cmd[1:3])} failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
                elif kind == "sh":
                    r = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
                    if r.returncode != 0:
                        failures += 1
                        print(f"{where}: bash -n: {r.stderr}", file=sys.stderr)
                    for raw in text.splitlines():
                        code = raw.split("#", 1)[0]
                        for m in CLI.finditer(code):
                            words = tuple(w for w in m.groups() if w)
                            if not subcommand_exists(words) and not subcommand_exists(words[:1]):
                                failures += 1
                                print(f"{where}: `kuatia {' '.join(words)}` is not a subcommand", file=sys.stderr)
                        for path in re.findall(r"(?:scripts|examples|tools|bindings)/[\w./-]+\.\w+", code):
                            if not (ROOT / path).exists():
                                failures += 1
                                print(f"{where}: {path} does not exist", file=sys.stderr)
                    reason = not_run_reason(f, line)
                    if reason is not None:
                        not_run.append(f"{where}: {reason}")
                        continue
                    if clone is None:
                        clone = tmp / f"clone-{n}" / "kuatia"
                        tracked_copy(clone)
                    log = tmp / "block.log"
                    started = time.monotonic()
                    ok, why = run_block(text, clone, env, log)
                    executed += 1
                    took = time.monotonic() - started
                    if ok:
                        print(f"  ran {where} ({took:.1f} s)")
                    else:
                        failures += 1
                        out = log.read_text(encoding="utf-8", errors="replace")
                        print(f"{where}: the block failed ({why}, {took:.1f} s):\n{text}--- output:\n{out}",
                              file=sys.stderr)
            if clone is not None:
                shutil.rmtree(clone.parent, ignore_errors=True)
    for line in not_run:
        print(f"  not run: {line}")
    print(f"doc blocks run: {executed} shell blocks executed, {len(not_run)} marked not run, {failures} failed")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:
        return check()
    if len(argv) == 3 and argv[0] == "extract" and argv[1] in KINDS:
        return extract(argv[1], Path(argv[2]))
    if len(argv) == 2 and argv[0] == "run":
        return run(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

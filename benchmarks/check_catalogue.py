"""Check every proof committed under catalogue/ in full, one archive after the other; print JSON.

    .venv/bin/python benchmarks/check_catalogue.py                       # every archive (hours of CPU)
    .venv/bin/python benchmarks/check_catalogue.py --only mini_nerdle-normal-g6.tar.gz --workers 1
    .venv/bin/python benchmarks/check_catalogue.py \
        --out benchmarks/results/check-catalogue-$(git rev-parse --short HEAD).json       # kept as such

Runs `python -m pipeline verify-certificate <archive> --workers N` for each archive, as a user checks one (the
full check: no --sample; the archive is unpacked into a temporary folder and no record is kept), with this
checkout's code (PYTHONPATH).  Per archive: the wall seconds, the CPU seconds of the check's processes (user +
system of the child and every worker it waited for: the growth of this process's RUSAGE_CHILDREN, exact since
the checks run one at a time) and `ok` (exit status 0 and an `ok: certificate verified` verdict); a failed check
also keeps its exit status and the last lines it wrote on stderr.  `load` is the load average before and after,
`commit` the checkout's commit (and whether its files differ from it).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "catalogue"
ARCHIVE_SUFFIX = ".tar.gz"
VERIFIED = "ok: certificate verified"  # how verify-certificate's verdict line starts when the check passes
STDERR_KEPT = 5  # lines of a failed check's stderr kept in the JSON


def children_cpu() -> float:
    """User + system CPU seconds of every child process this one has waited for (and of their waited children)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def loads() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def commit() -> dict:
    """The checkout's commit and whether its tracked files differ from it (None without git)."""
    def git(*args) -> str | None:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    head = git("rev-parse", "--short", "HEAD")
    changes = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": head, "clean": None if changes is None else not changes}


def archives(only: list[str] | None) -> list[Path]:
    """The archives to check, by name: all of catalogue/*.tar.gz, or those named (with or without .tar.gz)."""
    found = {p.name: p for p in sorted(CATALOGUE.glob(f"*{ARCHIVE_SUFFIX}"))}
    if not only:
        return list(found.values())
    wanted = [name if name.endswith(ARCHIVE_SUFFIX) else name + ARCHIVE_SUFFIX for name in only]
    unknown = [name for name in wanted if name not in found]
    if unknown:
        raise ValueError(f"no archive {', '.join(unknown)} under {CATALOGUE}; archives: {', '.join(found)}")
    return [found[name] for name in dict.fromkeys(wanted)]


def check(path: Path, workers: int) -> dict:
    """One full check of `path` in a child process: wall, CPU of its processes, whether it verified."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(path), "--workers",
                           str(workers)], capture_output=True, text=True, cwd=ROOT, env=env)
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu
    ok = done.returncode == 0 and done.stdout.startswith(VERIFIED)
    out = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "ok": ok,
           "verdict": (done.stdout.strip().splitlines() or [""])[0]}
    if not ok:
        out |= {"returncode": done.returncode, "stderr_tail": done.stderr.strip().splitlines()[-STDERR_KEPT:]}
    return out


def measure(paths: list[Path], workers: int) -> dict:
    load_before, bundles = loads(), {}
    for path in paths:
        print(f"checking {path.name} ...", file=sys.stderr, flush=True)
        bundles[path.name] = check(path, workers)
    total = {"wall_s": round(sum(b["wall_s"] for b in bundles.values()), 1),
             "cpu_s": round(sum(b["cpu_s"] for b in bundles.values()), 1),
             "ok": all(b["ok"] for b in bundles.values())}
    return {"bundles": bundles, "total": total, "workers": workers, "load": {"before": load_before, "after": loads()},
            **commit()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="check only these archives of catalogue/")
    parser.add_argument("--workers", type=int, default=2, help="processes of each check (its --workers)")
    parser.add_argument("--out", type=Path, help="also write the JSON to this file")
    args = parser.parse_args()
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    try:
        paths = archives(args.only)
    except ValueError as err:
        parser.error(str(err))
    result = measure(paths, args.workers)
    text = json.dumps(result, indent=2) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text, end="")
    sys.exit(0 if result["total"]["ok"] else 1)  # a check that failed fails the run (make bench stops)


if __name__ == "__main__":
    main()

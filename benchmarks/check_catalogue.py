"""Check every proof committed under catalogue/ in full, one archive after the other; print JSON.

    .venv/bin/python benchmarks/check_catalogue.py                       # every archive (hours of CPU)
    .venv/bin/python benchmarks/check_catalogue.py --only mini_nerdle-normal-g6.tar.gz --workers 1
    .venv/bin/python benchmarks/check_catalogue.py \
        --out benchmarks/results/check-catalogue-$(git rev-parse --short HEAD).json       # kept as such
    .venv/bin/python benchmarks/check_catalogue.py --out FILE --resume   # go on where a stopped run left off

Runs `python -m pipeline verify-certificate <archive> --workers N` for each archive, as a user checks one (the
full check: no --sample; the archive is unpacked into a temporary folder and no record is kept), with this
checkout's code (PYTHONPATH).  Per archive: the wall seconds, the CPU seconds of the check's processes (user +
system of the child and every worker it waited for: the growth of this process's RUSAGE_CHILDREN, exact since
the checks run one at a time) and `ok` (exit status 0 and an `ok: certificate verified` verdict); a failed check
also keeps its exit status and the last lines it wrote on stderr.  `load` is the load average before and after,
`commit` the checkout's commit (and whether its files differ from it).

With --out, the file is rewritten after every archive (`"complete": false` until the last one): `--resume` keeps
the archives that file records as checked ok (by the same commit and --workers; anything else is refused) and
checks the others.  Each archive also records the load average before and after its own check, since a resumed
run spans several sittings.  The archive being checked is written there too, every HEARTBEAT_SECONDS
(`"in_progress"`: its name, the wall and CPU seconds its check has taken so far, in every sitting): a check
stopped with the run resumes from its journal, and the figures of its earlier sittings are added to the last
one's (`"sittings"`: how many; those figures are at most HEARTBEAT_SECONDS short of what each stopped sitting
spent).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "catalogue"
ARCHIVE_SUFFIX = ".tar.gz"
VERIFIED = "ok: certificate verified"  # how verify-certificate's verdict line starts when the check passes
STDERR_KEPT = 5  # lines of a failed check's stderr kept in the JSON
HEARTBEAT_SECONDS = 30.0  # how often the archive being checked is recorded as in progress (with --out)


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


def tree_cpu(pid: int) -> float:
    """User + system CPU seconds so far of the process `pid`, its descendants and the children they waited for
    (processes gone meanwhile count for nothing)."""
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def check(path: Path, workers: int, heartbeat=None) -> dict:
    """One full check of `path` in a child process: wall, CPU of its processes, whether it verified, load around it.
    `heartbeat(wall, cpu)` is called every HEARTBEAT_SECONDS while it runs."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load_before, cpu, started = loads(), children_cpu(), time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "pipeline", "verify-certificate", str(path), "--workers",
                              str(workers)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                             env=env)
    while heartbeat is not None:
        try:
            child.wait(HEARTBEAT_SECONDS)
            break
        except subprocess.TimeoutExpired:
            heartbeat(time.perf_counter() - started, tree_cpu(child.pid))
    stdout, stderr = child.communicate()
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu
    ok = child.returncode == 0 and stdout.startswith(VERIFIED)
    out = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "ok": ok,
           "verdict": (stdout.strip().splitlines() or [""])[0], "load": {"before": load_before, "after": loads()}}
    if not ok:
        out |= {"returncode": child.returncode, "stderr_tail": stderr.strip().splitlines()[-STDERR_KEPT:]}
    return out


def with_earlier_sittings(bundle: dict, earlier: dict | None) -> dict:
    """`bundle`'s figures with those of its check's earlier, stopped sittings (`earlier`: an in_progress record of
    the same archive, or None) added."""
    if not earlier:
        return bundle
    return {**bundle, "wall_s": round(bundle["wall_s"] + earlier["wall_s"], 1),
            "cpu_s": round(bundle["cpu_s"] + earlier["cpu_s"], 1), "sittings": earlier["sittings"] + 1}


def measure(paths: list[Path], workers: int, earlier: dict | None = None, save=None) -> dict:
    """Every archive of `paths` checked, except those `earlier` (a run's JSON being resumed) records as ok; the
    result so far handed to `save` after each archive."""
    kept = {name: b for name, b in (earlier or {}).get("bundles", {}).items() if b["ok"]}
    load_before = (earlier or {}).get("load", {}).get("before", loads())
    stopped = (earlier or {}).get("in_progress")
    bundles = {p.name: kept[p.name] for p in paths if p.name in kept}
    if bundles:
        print(f"resumed: {len(bundles)} archive(s) already checked ok", file=sys.stderr, flush=True)
    for path in [p for p in paths if p.name not in bundles]:
        before = stopped if stopped and stopped["archive"] == path.name else None
        print(f"checking {path.name} ..." + (f" (sitting {before['sittings'] + 1})" if before else ""),
              file=sys.stderr, flush=True)

        def heartbeat(wall: float, cpu: float) -> None:
            now = with_earlier_sittings({"wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}, before)
            in_progress = {"archive": path.name, "wall_s": now["wall_s"], "cpu_s": now["cpu_s"],
                           "sittings": now.get("sittings", 1)}
            save(summary(bundles, workers, load_before, complete=False) | {"in_progress": in_progress})

        bundles[path.name] = with_earlier_sittings(check(path, workers, heartbeat if save else None), before)
        if save:
            save(summary(bundles, workers, load_before, complete=len(bundles) == len(paths)))
    return summary({p.name: bundles[p.name] for p in paths}, workers, load_before, complete=True)


def summary(bundles: dict, workers: int, load_before: list[float], complete: bool) -> dict:
    total = {"wall_s": round(sum(b["wall_s"] for b in bundles.values()), 1),
             "cpu_s": round(sum(b["cpu_s"] for b in bundles.values()), 1),
             "ok": all(b["ok"] for b in bundles.values())}
    return {"bundles": dict(bundles), "total": total, "workers": workers, "load": {"before": load_before, "after": loads()},
            **commit(), "complete": complete}


def earlier_run(out: Path, workers: int) -> dict | None:
    """The JSON a stopped run left at `out` (None if there is none), if it was made by this commit and --workers."""
    if not out.is_file():
        return None
    try:
        earlier = json.loads(out.read_text())
        recorded = (earlier["commit"], earlier["clean"], earlier["workers"], earlier["bundles"])
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{out} is not a run of this script ({err}): give another --out") from None
    here = commit()
    if recorded[:3] != (here["commit"], here["clean"], workers):
        raise ValueError(f"{out} was made by commit {recorded[0]} (clean: {recorded[1]}) with --workers "
                         f"{recorded[2]}, not {here['commit']} (clean: {here['clean']}) with {workers}: "
                         "resume only the same run")
    return earlier


def write_atomically(path: Path, result: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="check only these archives of catalogue/")
    parser.add_argument("--workers", type=int, default=2, help="processes of each check (its --workers)")
    parser.add_argument("--out", type=Path, help="also write the JSON to this file (after every archive)")
    parser.add_argument("--resume", action="store_true", help="keep the archives --out records as checked ok")
    args = parser.parse_args()
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    if args.resume and not args.out:
        parser.error("--resume goes on from the file of --out: give it")
    try:
        paths = archives(args.only)
        earlier = earlier_run(args.out, args.workers) if args.resume else None
    except ValueError as err:
        parser.error(str(err))
    save = (lambda result: write_atomically(args.out, result)) if args.out else None
    result = measure(paths, args.workers, earlier=earlier, save=save)
    if save:
        save(result)
    print(json.dumps(result, indent=2))
    sys.exit(0 if result["total"]["ok"] else 1)  # a check that failed fails the run (make bench stops)


if __name__ == "__main__":
    main()

"""Plant one-line slips in the checker (pipeline/proofs/) and its prover twins, one at a time, and report which the
tests kill.  Run it before a change to the checker lands (docs/proofs.md).

Each slip is (name, file, the exact original text, its replacement, the test files that should catch it).  Every
original must occur exactly once in its file, or nothing runs (one `error:` line, exit status 2).  The working tree
is never edited: the package, tests, conf/ and data/ are copied into a scratch folder, the slip is written into the
copy, and the slip's test files run there (`pytest -x`, PYTHONPATH and the working folder the copy).  First the
unslipped copy runs every listed test file once; they must pass, else the report would mean nothing.

A slip is killed when its tests fail (any non-zero pytest status), survived when they pass; a run over
`--timeout` seconds counts as killed and says so.  Prints one JSON object: each slip's status, the test that killed
it and the seconds it took, and the kill count.  CPU heavy (one pytest run per slip, sequentially): `--only NAME...` runs some of them, `--list` shows
them.

numba: the package keys its kernel cache folder by the digest of the kernel sources (pipeline/__init__.py), so
each slipped copy gets a folder of its own.  To spare a full compile per slip, that folder starts as a copy of the
baseline's, less the cache files of the slipped module and of every module that imports it, directly or not (a
kernel compiled from a module that calls into the slipped one must not be reused).  numba checks each remaining
entry against its own source file's bytes, and the copy is always made at the same path, so the rest loads.

Run: .venv/bin/python benchmarks/mutation.py [--only NAME ...] [--timeout SECONDS] [--list]
"""

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("pipeline", "tests", "conf", "data", "pyproject.toml")
CHECKER_TESTS = ("tests/test_checker_brute.py",)
STABILISER_TESTS = ("tests/test_stabiliser_brute.py",)
BINDING_TESTS = ("tests/test_rules_that_bind.py",)
JOURNAL_TESTS = ("tests/test_check_journal.py",)
BUDGET_TESTS = ("tests/test_checker_scans.py", "tests/test_checker_brute.py")
MEMO_TESTS = ("tests/test_checker_memo.py", "tests/test_checker_brute.py")


@dataclass(frozen=True)
class Slip:
    name: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]


SLIPS = (
    Slip("exact: a small class's floor 2|C| raised by one", "pipeline/proofs/exact/search.py",
         "floors[c] = max(floors[c], 2 * size)", "floors[c] = max(floors[c], 2 * size + 1)", CHECKER_TESTS),
    Slip("exact: classes get two guesses fewer", "pipeline/proofs/exact/nodes.py",
         "return NO_LIMIT if left == NO_LIMIT else left - 1", "return NO_LIMIT if left == NO_LIMIT else left - 2",
         CHECKER_TESTS),
    Slip("exact: three secrets worth 6 with two guesses left", "pipeline/proofs/exact/search.py",
         "if n == 3 and (left == NO_LIMIT or left >= 3):", "if n == 3 and (left == NO_LIMIT or left >= 2):",
         CHECKER_TESTS + BINDING_TESTS),
    Slip("exact: a class of three settled at 5 without a splitting candidate", "pipeline/proofs/exact/search.py",
         "elif size <= 2 or (size <= SMALL_CLASS", "elif size <= 3 or (size <= SMALL_CLASS", CHECKER_TESTS),
    Slip("exact: class floor 2t - 1 raised by one", "pipeline/proofs/exact/solver.py",
         "floor = np.maximum(2 * np.arange(n_secrets + 1) - 1, 0)",
         "floor = np.maximum(2 * np.arange(n_secrets + 1), 0)", CHECKER_TESTS),
    Slip("exact: one guess left finishes a pair", "pipeline/proofs/exact/search.py",
         "if (left != NO_LIMIT and left < 1) or (left == 1 and n > 1):",
         "if (left != NO_LIMIT and left < 1) or (left == 1 and n > 2):", CHECKER_TESTS),
    Slip("exact: a memo bound just below the budget taken as the value", "pipeline/proofs/exact/search.py",
         "if at >= 0 and (memo[5][at] == 1 or memo[4][at] >= beta):",
         "if at >= 0 and (memo[5][at] == 1 or memo[4][at] >= beta - 1):", CHECKER_TESTS),
    Slip("exact: a class's value added without taking off its floor", "pipeline/proofs/exact/search.py",
         "up[TOTAL] += row[BEST] - parent[4][parent[3][up[CLASS]]]", "up[TOTAL] += row[BEST]", CHECKER_TESTS),
    Slip("exact: a class's rule read from the guess's first candidate, not the class's",
         "pipeline/proofs/exact/search.py", "words[g], codes[g, cls[0]], child_fixed",
         "words[g], codes[g, node[0][0]], child_fixed", CHECKER_TESTS),
    Slip("stabiliser (checker): a map may cross symbol blocks", "pipeline/proofs/symmetry/stabiliser.py",
         "if sym.setdefault(a, b) != b or self.block_of[a] != self.block_of[b]:", "if sym.setdefault(a, b) != b:",
         STABILISER_TESTS),
    Slip("stabiliser (checker): position maps in hard mode", "pipeline/proofs/symmetry/stabiliser.py",
         "for pos in ([identity] if hard_mode else self.positions):", "for pos in self.positions:", STABILISER_TESTS),
    Slip("certificate: a class's exact value with the whole limit left", "pipeline/proofs/certificates/optimal.py",
         'return g, members, "exact", 0, None if limit is None else limit - 1,',
         'return g, members, "exact", 0, None if limit is None else limit,', BINDING_TESTS),
    Slip("certificate: a tied opener's class solved against its own claim", "pipeline/proofs/certificates/optimal.py",
         "claimed + 1 if tied else claimed", "claimed", BINDING_TESTS),
    Slip("journal: bound to the lists and checker, not to the certificate's bytes",
         "pipeline/proofs/certificates/journal.py", 'bound = {"certificate_sha256": certificate_sha256, ',
         "bound = {", JOURNAL_TESTS),
    Slip("journal: a line read back without testing its seal", "pipeline/proofs/certificates/journal.py",
         "if (isinstance(work, str) and type(value) is int and isinstance(mac, str)\n",
         "if (isinstance(work, str) and type(value) is int and isinstance(mac, str) or True\n", JOURNAL_TESTS),
    Slip("bounds (checker): the part count past the budget one too high", "pipeline/proofs/bounds/lower.py",
         "while k < n - 1 and bound(n, k + 1) > budget:", "while k < n - 1 and bound(n, k + 1) >= budget:",
         BUDGET_TESTS),
    Slip("bounds (checker): LB_3's score past the budget one too high", "pipeline/proofs/bounds/lower.py",
         "beyond = 3 * n - budget - 1", "beyond = 3 * n - budget", BUDGET_TESTS),
    Slip("bounds (checker): a hard LB_2 that met the budget's count taken as exact", "pipeline/proofs/bounds/hard.py",
         "result = self.memo[key] = int(bound(n, most)), most > beyond",
         "result = self.memo[key] = int(bound(n, most)), most >= beyond",
         BUDGET_TESTS),
    Slip("bounds (checker): a part count given up one candidate early", "pipeline/proofs/bounds/hard.py",
         "if parts + n - 1 - i <= best:", "if parts + n - 2 - i <= best:", BUDGET_TESTS),
    Slip("bounds (checker): a hard LB_3 scan skips a guess whose cap is one short", "pipeline/proofs/bounds/hard.py",
         "if 3 * n - 1 - caps[g] >= least:", "if 3 * n - caps[g] >= least:", BUDGET_TESTS),
    Slip("bounds (checker): an LB_3 stopped at its ceiling taken as exact", "pipeline/proofs/bounds/lower.py",
         "return least, least < ceiling or ceiling == HUGE", "return least, least <= ceiling or ceiling == HUGE",
         BUDGET_TESTS),
    Slip("memo (checker): a full memo takes one entry more", "pipeline/proofs/bounds/memo.py",
         "if len(self) >= self.limit and key not in self:", "if len(self) > self.limit and key not in self:",
         MEMO_TESTS),
    Slip("memo (checker): a known key empties a full memo", "pipeline/proofs/bounds/memo.py",
         "if len(self) >= self.limit and key not in self:", "if len(self) >= self.limit:", MEMO_TESTS),
    Slip("feasibility (checker): the memo forgets how many guesses are left", "pipeline/proofs/solvable/within.py",
         'key = (cands.tobytes(), left, rule.key() if rule is not None else b"")',
         'key = (cands.tobytes(), rule.key() if rule is not None else b"")', CHECKER_TESTS),
    Slip("archive: a member INDEX.json does not list is ignored", "pipeline/proofs/files/archive.py",
         'found = names - {INDEX, "README.txt"}', 'found = (names - {INDEX, "README.txt"}) & set(expected)',
         BINDING_TESTS),
    Slip("stabiliser (prover): a map may cross symbol blocks", "pipeline/search/symmetry/stabiliser.py",
         "if forced.setdefault(x, y) != y or self.symbol_block[x] != self.symbol_block[y]:",
         "if forced.setdefault(x, y) != y:", STABILISER_TESTS),
    Slip("stabiliser (prover): position maps in hard mode", "pipeline/search/symmetry/stabiliser.py",
         "for pos in ([identity_p] if symbols_only else self.position_maps):", "for pos in self.position_maps:",
         STABILISER_TESTS),
    Slip("closure (prover): a class's guesses left is the whole limit", "pipeline/search/bounds/closure.py",
         "return None if game.max_guesses is None else game.max_guesses - 1",
         "return None if game.max_guesses is None else game.max_guesses", BINDING_TESTS),
    Slip("funnel (prover): the first hard level computed by the normal bounds", "pipeline/search/bounds/funnel.py",
         'return "hard" if hard_mode and level >= hard_from else "normal"',
         'return "hard" if hard_mode and level > hard_from else "normal"', BINDING_TESTS),
)


class Refused(Exception):
    pass


def check_slips(slips, root: Path = ROOT) -> None:
    """Every original occurs exactly once in its file, and every test file exists (Refused otherwise)."""
    for slip in slips:
        path = root / slip.file
        if not path.is_file():
            raise Refused(f"{slip.name}: no file {slip.file}")
        found = path.read_text().count(slip.original)
        if found != 1:
            raise Refused(f"{slip.name}: the original text {slip.original!r} occurs {found} times in {slip.file}, "
                          "not once")
        missing = [t for t in slip.tests if not (root / t).is_file()]
        if missing:
            raise Refused(f"{slip.name}: no test file {missing[0]}")


def make_copy(into: Path, slip: Slip | None = None) -> None:
    """The package, tests, conf/ and data/ copied into `into` (emptied first), with `slip` written in."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, into / name)
    if slip is not None:
        path = into / slip.file
        path.write_text(path.read_text().replace(slip.original, slip.replacement))


def environment(copy: Path, numba_root: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(copy), NUMBA_CACHE_DIR=str(numba_root), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)
    return env


def cache_folder(copy: Path, numba_root: Path) -> Path:
    """The numba cache folder the copy's package picks (named by its kernel sources' digest)."""
    out = subprocess.run([sys.executable, "-c", "import os, pipeline; print(os.environ['NUMBA_CACHE_DIR'])"],
                         cwd=copy, env=environment(copy, numba_root), capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def module_of(path: Path, copy: Path) -> str:
    """pipeline.x.y for <copy>/pipeline/x/y.py, pipeline.x for its __init__.py."""
    parts = path.relative_to(copy).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def importers(copy: Path, module: str) -> set[Path]:
    """The package's files that import `module`, directly or through other modules (and its own file)."""
    files = {module_of(p, copy): p for p in (copy / "pipeline").rglob("*.py")}
    imports = {}
    for name, path in files.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        imports[name] = found
    stale, grew = {module}, True
    while grew:
        fresh = {name for name, found in imports.items() if name not in stale and found & stale}
        stale |= fresh
        grew = bool(fresh)
    return {files[name] for name in stale if name in files}


def seed_cache(baseline: Path, target: Path, stale_files: set[Path]) -> None:
    """`target` starts as a copy of the baseline's numba cache, less every entry compiled from `stale_files`
    (numba names a file's entries <stem>.<function>... in a folder named after the file's folder)."""
    if target.exists() or not baseline.is_dir():
        return
    shutil.copytree(baseline, target)
    for path in stale_files:
        for folder in target.glob(f"{path.parent.name}_*"):
            for entry in folder.glob(f"{path.stem}.*"):
                entry.unlink()


def run_tests(copy: Path, numba_root: Path, tests, timeout: float, scratch: Path) -> dict:
    """{status: passed / failed / timeout, seconds, the tests that failed, pytest's last line} of the test files in
    the copy."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", f"--basetemp={scratch}",
               *tests]
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=copy, env=environment(copy, numba_root), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": time.monotonic() - start, "failed": [], "pytest": ""}
    lines = done.stdout.strip().splitlines()
    return {"status": "passed" if done.returncode == 0 else "failed", "seconds": time.monotonic() - start,
            "failed": [line.split(" ", 1)[1].split(" - ")[0] for line in lines if line.startswith(("FAILED ", "ERROR "))],
            "pytest": lines[-1] if lines else ""}


def mutate(slips, timeout: float, work: Path) -> dict:
    """The baseline run, then one run per slip; the report."""
    copy, numba_root = work / "tree", work / "numba"
    every_test = sorted({t for slip in slips for t in slip.tests})
    make_copy(copy)
    baseline = cache_folder(copy, numba_root)
    baseline_run = run_tests(copy, numba_root, every_test, timeout, work / "pt")
    if baseline_run["status"] != "passed":
        raise Refused(f"the unslipped tests do not pass ({baseline_run['status']}: {baseline_run['pytest']}); no slip "
                      "was planted")
    results = []
    for slip in slips:
        make_copy(copy, slip)
        seed_cache(baseline, cache_folder(copy, numba_root), importers(copy, module_of(copy / slip.file, copy)))
        run = run_tests(copy, numba_root, slip.tests, timeout, work / "pt")
        results.append({"slip": slip.name, "file": slip.file, "tests": list(slip.tests),
                        "status": "survived" if run["status"] == "passed" else "killed",
                        "timed_out": run["status"] == "timeout", "killed_by": run["failed"],
                        "seconds": round(run["seconds"], 1), "pytest": run["pytest"]})
        print(f"{slip.name}: {results[-1]['status']} ({run['seconds']:.0f} s)", file=sys.stderr, flush=True)
    killed = sum(r["status"] == "killed" for r in results)
    return {"baseline_tests": every_test, "slips": results, "killed": killed, "survived": len(results) - killed,
            "total": len(results)}


def chosen(names) -> list[Slip]:
    if not names:
        return list(SLIPS)
    by_name = {slip.name: slip for slip in SLIPS}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise Refused(f"no slip named {unknown[0]!r} (--list shows them)")
    return [by_name[n] for n in names]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these slips (names as --list prints them)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds one pytest run may take")
    parser.add_argument("--list", action="store_true", help="print the slips and exit")
    args = parser.parse_args(argv)
    try:
        if not 0 < args.timeout < float("inf"):
            raise Refused(f"--timeout {args.timeout} is not a positive number of seconds")
        slips = chosen(args.only)
        check_slips(slips)
        if args.list:
            print(json.dumps([{"slip": s.name, "file": s.file, "tests": list(s.tests)} for s in slips], indent=1))
            return 0
        with tempfile.TemporaryDirectory(prefix="mutation-") as work:
            report = mutate(slips, args.timeout, Path(work))
    except Refused as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Exact values of positions for the coach (analyse, top): MinTotal(C) and V*(g, C), or labelled bounds.

A position is a candidate set C with the guesses left under the game's limit
(and, in hard mode, the rule's state).  Its values are totals over C (the sum,
over the secrets of C, of the guesses still needed), so the expected number of
further guesses is total / |C|.  Where each value comes from, best first:

- known: a published optimum of the shipped game (report/published.py: original
  Wordle's 7920 with SALET, proved by this project's `prove` stage too) or a
  stored artifact for the same game (a proven `prove` certificate, the `exact`
  stage's V*(opener, S), the `upper_bound` stage's per-opener upper bounds) —
  only for the start of a game, whose sets these artifacts describe;
- exact: the exact solver (search/exact/solver.py), in this process for small sets
  (|C| x |G| <= IN_PROCESS_CELLS, milliseconds), otherwise in a forked child
  given `budget` seconds and killed if it takes longer;
- upper bound: ApMinTotal(C, 1) (the greedy tree the upper_bound stage starts
  from) when the exact solver ran out of time, labelled as such.

Infeasible (no strategy finds every secret within the guesses left) is
`INFEASIBLE`; the chance of losing is then given by `loss_chance`.
"""

import dataclasses
import os
import pickle
import select
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.artifacts.outputs import CERTIFICATE, EXACT, OPENER_TOTALS, read_table
from pipeline import PipelineError
from pipeline.processes import signals
from pipeline.processes.pool import answer_to
from pipeline.runtime.files import read_json
from pipeline.search.exact.solver import IMPOSSIBLE, ExactSolver
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.search.matrix import Matrix

IN_PROCESS_CELLS = 2_000_000  # |C| x |G| below which the exact solver runs in this process without a budget
INFEASIBLE = None
VALUED_STAGES = ("exact", "prove", "upper_bound")  # the stages whose artifacts give values, in folder order


@dataclass(frozen=True)
class Value:
    """A total over a candidate set: exact, or an upper bound; `total` None when unknown, -1 when infeasible."""

    total: int | None
    kind: str  # "exact", "upper bound", "unknown", "infeasible"
    source: str  # where it comes from, in words
    guess: int = -1  # the guess reaching it (best values), -1 if not known
    depths: tuple[int, ...] | None = None  # secrets found at the 1st, 2nd, ... guess from here by an optimal tree

    @property
    def known(self) -> bool:
        return self.total is not None and self.total >= 0


UNKNOWN = Value(None, "unknown", "not evaluated (out of time)")


def within(seconds: float, task, then=None) -> list:
    """task() in a forked child, then (with `then`) then(its result): the (picklable) results the child
    sent within `seconds`, in order: [], [result] or [result, then(result)].

    The child shares the parent's memory copy-on-write (the code matrix, the
    compiled solver), so nothing is sent but the small results, each as soon as
    it is ready (a slow second step never costs the first).  Without fork (not
    POSIX) the task is not run."""
    if seconds <= 0 or not hasattr(os, "fork"):
        return []
    read, write = os.pipe()
    parent = os.getpid()
    with signals.held():  # a signal waits until the child is known (and, in the child, until it has let go)
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child; its coverage is not collected)
            _child(task, then, read, write, parent)
    os.close(write)
    received, deadline = bytearray(), time.monotonic() + seconds
    try:
        with signals.child(pid):  # a signal that ends the command ends the child too
            while (remaining := deadline - time.monotonic()) > 0 and select.select([read], [], [], remaining)[0]:
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                received += chunk
        return _frames(bytes(received))
    finally:
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)


def _child(task, then, read: int, write: int, parent: int) -> None:  # pragma: no cover (runs in the child)
    """The forked child of `within`: it leaves signals to its parent and dies with it (a stopped command leaves
    no solver running), sends task() and then(its result), and exits."""
    status = 1
    try:
        answer_to(parent)
        os.close(read)
        result = task()
        _send(write, result)
        if then is not None:
            _send(write, then(result))
        status = 0
    finally:
        os._exit(status)


def _send(fd: int, obj) -> None:  # pragma: no cover (runs in the child)
    data = pickle.dumps(obj)
    data = len(data).to_bytes(8, "little") + data
    while data:
        data = data[os.write(fd, data):]


def _frames(data: bytes) -> list:
    """The complete length-prefixed pickles at the start of `data`."""
    found, at = [], 0
    while at + 8 <= len(data):
        size = int.from_bytes(data[at:at + 8], "little")
        if at + 8 + size > len(data):
            break
        found.append(pickle.loads(data[at + 8:at + 8 + size]))
        at += 8 + size
    return found


class Valuer:
    """MinTotal / V* of positions of one game, exact where possible within a time budget per value."""

    def __init__(self, game, codes: np.ndarray, budget: float = 2.0, outputs: Path | None = None):
        self.game = game
        self.codes = codes
        self.matrix = Matrix.of_game(codes, game)
        self.budget = budget
        self.solver = ExactSolver(self.matrix, hard_mode=game.hard_mode, max_guesses=game.max_guesses, memo_bits=20)
        self.solver.min_total(np.arange(min(3, codes.shape[1]), dtype=np.int32))  # compile before any fork
        self._ap = None
        self._best = {}  # memo of best(): the next row's position is this row's after-set
        self._normal = None
        self.orders = {}  # the greedy order of the set `top` ranks (ranking.py), kept for a repeated `top`
        self.known = KnownValues(game, outputs)

    def _state(self, state):
        return state if self.game.hard_mode else None

    def small(self, n: int) -> bool:
        """Is a set of n candidates solved in this process (no time budget needed)?"""
        return n * self.codes.shape[0] <= IN_PROCESS_CELLS

    def normal_mode(self) -> "Valuer":
        """The same game's values ignoring hard mode (what an illegal guess would have given)."""
        if not self.game.hard_mode:
            return self
        if self._normal is None:
            self._normal = Valuer(dataclasses.replace(self.game, hard_mode=False), self.codes, self.budget)
        return self._normal

    def _exact(self, task, n: int, seconds: float | None = None, then=None):
        """The Value of task() -> (total, guess): in this process for small sets, else in a child within
        `seconds` (default the budget), which then also gives `then((total, guess))` as its depths if in time."""
        if self.small(n):
            results = [task()]
        else:
            results = within(self.budget if seconds is None else seconds, task, then)
        if not results:
            return None
        total, guess = results[0]
        if total >= IMPOSSIBLE:
            return Value(-1, "infeasible", "exact solver", guess)
        return Value(int(total), "exact", "exact solver", int(guess), results[1] if len(results) > 1 else None)

    def depths(self, guess: int, candidates: np.ndarray, state=None, left=None) -> tuple[int, ...] | None:
        """Secrets found at the 1st, 2nd, ... guess by an optimal tree opening with `guess` (sets solved in
        this process only, else None; quick once the guess's value is known: the solver's memo has it)."""
        cand = np.asarray(candidates, dtype=np.int32)
        if not self.small(len(cand)):
            return None
        return optimal_depths(self.solver, guess, cand, self._state(state), left)

    def best(self, candidates: np.ndarray, state=None, left=None, start: bool = False,
             seconds: float | None = None) -> Value:
        """MinTotal(C) and an optimal guess (or the best bound and its guess); the solver gets `seconds`
        (default the budget) on sets it does not solve in this process."""
        cand = np.asarray(candidates, dtype=np.int32)
        key = (cand.tobytes(), left, start, None if state is None else (state[0].tobytes(), state[1].tobytes()))
        if key not in self._best:
            self._best[key] = self._find_best(cand, state, left, start, seconds)
        return self._best[key]

    def _find_best(self, cand, state, left, start: bool, seconds: float | None = None) -> Value:
        known = None
        if start:
            known = self.known.best()
            if known is not None and known.kind == "exact":
                return known
        st = self._state(state)
        value = self._exact(lambda: self.solver.best_guess(cand, st, left), len(cand), seconds)
        if value is not None:
            return value
        if start and known is not None:
            return known
        return self._upper(cand, st, left, -1)

    def played(self, guess: int, candidates: np.ndarray, state=None, left=None, start: bool = False,
               seconds: float | None = None, upper: bool = True, depths: bool = False) -> Value:
        """V*(g, C): the best total over C once `guess` is played (the solver gets `seconds`, default the
        budget; without `upper` no upper bound is searched when it runs out: UNKNOWN).  With `depths`, a
        set solved in a child also gets its optimal tree's depths from there, if they come in time (the
        child's memo is lost after; for small sets `depths()` gives them)."""
        cand = np.asarray(candidates, dtype=np.int32)
        known = self.known.opener(self.game.guesses[guess]) if start else None
        if known is not None and known.kind == "exact":
            return known
        st = self._state(state)
        def then(result):
            return optimal_depths(self.solver, guess, cand, st, left) if result[0] < IMPOSSIBLE else None

        value = self._exact(lambda: (self.solver.guess_value(guess, cand, state=st, left=left)[0], guess),
                            len(cand), seconds, then if depths else None)
        if value is not None:
            return value
        if known is not None or not upper:
            return known or UNKNOWN
        return self._upper(cand, st, left, guess)

    def _upper(self, cand, state, left, opener: int) -> Value:
        if self._ap is None:
            from pipeline.search.apmintotal.value import ApSearch

            game = self.game
            self._ap = ApSearch(self.matrix, 1, hard_mode=game.hard_mode, max_guesses=game.max_guesses,
                                max_entries=200_000)
        result = self._ap.strategy(cand.astype(np.int64), opener, state, left)
        source = f"ApMinTotal breadth 1 (the exact solver took over {self.budget:g} s)"
        if result.total is None:
            return Value(None, "unknown", source + "; no strategy within the guess limit found", opener)
        return Value(int(result.total), "upper bound", source, int(result.opener))


def optimal_depths(solver: ExactSolver, guess: int, cand: np.ndarray, state, left) -> tuple[int, ...]:
    """Secrets of `cand` found at the 1st, 2nd, ... guess by an optimal strategy opening with `guess` (its
    value must be feasible): the exact solver's best guess in every class of three or more; one or two
    candidates are guessed in turn (the only optimal way, always legal in hard mode)."""
    counts = [0] * (len(cand) + 2)
    left = solver.max_guesses if left is None else left
    if state is None:
        state = initial_state(solver.length)

    def walk(g, members, state, left, depth):
        row = solver.codes[g][members]
        counts[depth] += int(np.count_nonzero(row == solver.win))
        for code in np.unique(row):
            sub = members[row == code]
            if code == solver.win:
                continue
            if len(sub) <= 2:
                counts[depth + 1] += 1
                counts[depth + 2] += len(sub) - 1
                continue
            child = update_state(state[0], state[1], solver.words[g], int(code)) if solver.hard else state
            walk(solver.best_guess(sub, child, left - 1)[1], sub, child, left - 1, depth + 1)

    walk(guess, cand, state, left, 0)
    return tuple(np.trim_zeros(np.array(counts), "b").tolist())


# ---- what is already known about the start of a game ------------------------------------------------------


class KnownValues:
    """Values of the full secret set S: published optima of the shipped games, and stored artifacts."""

    def __init__(self, game, outputs: Path | None):
        self.game = game
        self._best: Value | None = None
        self._openers: dict[str, Value] = {}
        self._published()
        if outputs is not None and Path(outputs).is_dir():
            self._artifacts(Path(outputs))

    def best(self) -> Value | None:
        return self._best

    def openers(self) -> dict[str, Value]:
        return dict(self._openers)

    def opener(self, word: str) -> Value | None:
        return self._openers.get(word)

    def _offer_opener(self, word: str, value: Value) -> None:
        current = self._openers.get(word)
        if current is None or (value.kind == "exact" and current.kind != "exact") or \
                (value.kind == current.kind and value.total < current.total):
            self._openers[word] = value
        if value.kind == "upper bound" or value.kind == "exact":  # V*(g, S) >= MinTotal(S): an upper bound of it
            bound = Value(value.total, "upper bound", value.source, self.game.guess_index.get(word, -1))
            if self._best is None or (self._best.kind != "exact" and value.total < self._best.total):
                self._best = bound

    def _published(self) -> None:
        """The published optimum when the game is a shipped one with its own lists and no stricter limit."""
        from pipeline.assistant.known import published_optimum
        from pipeline.report.published import EXACT

        game = self.game
        published = published_optimum(game)
        if published is None:
            return
        total, opener = published
        source = "published optimum (Cunanan & Thielscher 2023; this project's prove stage proves it)"
        self._best = Value(total, "exact", source, game.guess_index[opener])
        for (name, word, hard), value in EXACT.items():
            if name == game.name and not hard:
                self._openers[word] = Value(value, "exact", "published exact value", game.guess_index[word])

    def _artifacts(self, outputs: Path) -> None:
        """Proven certificates, exact-stage values and upper_bound per-opener bounds of this very game: the finished
        artifacts of the store that fit it (pipeline.artifacts.find), by stage and key."""
        from pipeline.artifacts.find import artifacts_for
        from pipeline.runtime.store import ArtifactStore

        store = ArtifactStore(outputs)
        for stage in VALUED_STAGES:
            try:
                found = artifacts_for(store, stage, self.game, skip_damaged=True)
            except (PipelineError, OSError):
                continue  # a stage folder that cannot be listed (a link, unreadable) is simply not used
            for artifact, _ in sorted(found, key=lambda pair: pair[0].key):
                try:
                    self._read_artifact(stage, artifact.path)
                except (PipelineError, OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
                    continue  # an unreadable artifact (not a file, too big, not JSON, damaged) is simply not used

    def _read_artifact(self, stage: str, folder: Path) -> None:
        label = f"{stage}/{folder.name}"
        guess_index = self.game.guess_index
        if stage == "prove":
            self._certificate(folder, label)
            return
        name = EXACT.name if stage == "exact" else OPENER_TOTALS.name
        for row in read_table(folder / name).to_pylist():
            if row.get("total") is None or row["opener"] not in guess_index:
                continue
            kind = "exact" if stage == "exact" else "upper bound"
            depths = _stored_depths(folder, row["opener"]) if stage == "exact" else None
            self._offer_opener(row["opener"], Value(int(row["total"]), kind, label, guess_index[row["opener"]],
                                                    depths))

    def _certificate(self, folder: Path, label: str) -> None:
        """A proven certificate's optimum: exact only once `verify-certificate` has checked it in full as it is now
        (pipeline/proofs/certificates/record.py); until then its claim is labelled unverified and never beats a known value."""
        from pipeline.proofs.certificates.record import status

        cert = read_json(folder / CERTIFICATE.name)
        if cert.get("proven") is not True:
            return
        ub, guess, check = int(cert["ub"]), self.game.guess_index[cert["optimal_openers"][0]], status(folder)
        if check.verified:
            self._best = Value(ub, "exact", f"proven optimum ({label}, {check.label()})", guess)
        elif self._best is None:
            self._best = Value(ub, "upper bound", f"{check.label()}, claiming {ub} ({label})", guess)


def _stored_depths(folder: Path, opener: str) -> tuple[int, ...] | None:
    """Secrets found at the 1st, 2nd, ... guess by the `exact` stage's optimal tree for `opener` (None if the
    tree file is missing or unreadable)."""
    from pipeline.artifacts.trees import tree_path

    try:
        found = {int(k): int(v) for k, v in read_json(tree_path(folder, opener))["distribution"].items()}
    except (PipelineError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return tuple(found.get(d, 0) for d in range(1, max(found, default=0) + 1)) or None


def loss_chance(codes: np.ndarray, candidates: np.ndarray, left: int, win: int, guesses=None) -> tuple[float, bool]:
    """(chance of losing, exact) from candidate set C with `left` guesses: the least number of secrets a
    strategy must fail to find, over |C|.  Exact for left <= 2 (one guess: all but one are lost; two:
    |C| minus the most classes a guess makes); beyond, the guess with most classes is followed (a bound).

    `guesses` restricts the guesses considered (hard mode), default all."""
    from pipeline.search.partition import split_parts

    n = len(candidates)
    if n == 0:
        return 0.0, True
    lost, exact = _lost(codes, np.asarray(candidates, dtype=np.int32), left, win, guesses, split_parts)
    return lost / n, exact


def _lost(codes, cand, left, win, guesses, split_parts) -> tuple[int, bool]:
    n = len(cand)
    if left <= 0:
        return n, True
    if left == 1 or n <= 1:
        return n - 1, True
    parts = split_parts(codes if guesses is None else codes[guesses], cand, win + 1)
    best = int(np.argmax(parts))
    if left == 2:
        return n - int(parts[best]), True
    g = best if guesses is None else int(guesses[best])
    row = codes[g][cand]
    total, exact = 0, False
    for code in np.unique(row):
        if code != win:
            total += _lost(codes, cand[row == code], left - 1, win, guesses, split_parts)[0]
    return total, exact

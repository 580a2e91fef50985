"""`verify-certificate`: re-check a proof of optimality written by the prove stage, with the checker's own code.

Before anything is computed, certificate.json must be strict JSON of the schema in schema.py (exact types,
ranges, no field this checker does not verify) for a game no bigger than its limit.
What a certificate claims, and how each claim is checked here:
- the UB tree (tree.json, digest pinned) plays the game: replayed secret by secret (tree.py), hard
  mode and the guess limit included; its total is `ub` and it opens with `ub_opener`;
- every allowed guess is either eliminated or a survivor, exactly once;
- an eliminated opener g has V_level(g, S) > ub: recomputed here (bounds.py, or hard_bounds.py for an
  elimination by the hard-mode bounds, accepted only in a hard-mode certificate) and compared with ub; the
  prover states no number for it, and a bound an older certificate states is re-derived too (V_level >= it);
- a survivor's classes are the classes of Split(S, g) other than the win; each class bound is a
  lower bound on that class's MinTotal: recomputed as LB_j, as the hard-mode LB_j from the state the
  opener's response leaves (hard-mode certificates only), or as an exact MinTotal (exact.py) in the
  game's mode with the guesses left after the opener; |S| + the sum of its class bounds is its
  value, which reaches ub; its `sum` is that sum, and a class's `target` (the UB opener's only) is the total
  of that class's subtree in the UB tree;
- an opener listed under "symmetry" has a representative in its orbit that is eliminated or a survivor:
  each generator is checked to be an automorphism of the game on the code matrix computed here
  (symmetry.py), so the opener's value is its representative's;
- the UB opener's value is ub, `optimal_openers` are exactly the survivors whose value is ub (and the
  openers they represent), K_S = max_g |Split(S, g)|.
An older certificate's `upper_bound_given` must be at least ub and open with an allowed guess (the prover now
keeps it in its stage summary, not in the certificate).
By default every elimination and every class is re-derived; `sample` re-derives only that many of
each, and the result then says the certificate was only partially checked.  Deep eliminations are
spread over `workers` processes (parallel.py).
"""

import hashlib
import random
import sys
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

from pipeline import PipelineError
from pipeline.proofs.game.answer import game_code_matrix, n_codes_of, symbols, text_of
from pipeline.proofs.bounds.lower import LowerBounds, split
from pipeline.proofs.exact.solver import ExactSolver
from pipeline.proofs.files.reader import FileRefused, file_bytes, json_of
from pipeline.proofs.bounds.hard import HardLowerBounds
from pipeline.proofs.certificates.journal import NoJournal, work_digest
from pipeline.proofs.certificates.naming import checked_name
from pipeline.proofs.certificates.parallel import (PROGRESS_PREFIX, SOLVABLE, class_value, opener_values,
                                                   pooled_class_values, pooled_values)
from pipeline.proofs.certificates.schema import MAX_BYTES, CertificateError, check_shape, check_size
from pipeline.proofs.symmetry.stabiliser import NotAProduct, ProductSymmetry
from pipeline.proofs.symmetry.generators import SymmetryRejected, check_symmetry
from pipeline.proofs.certificates.tree import TreeRejected, answer_of, check_tree, guess_limit, subtree_totals


NO_JOURNAL = NoJournal()  # a check that keeps nothing (journal.py)


def _check(condition: bool, why: str) -> None:
    if not condition:
        raise CertificateError(f"certificate rejected: {why}")


MALFORMED = (KeyError, TypeError, ValueError, AttributeError)  # what reading a field of the wrong shape raises


@contextmanager
def malformed_rejected(errors: tuple = MALFORMED):
    """A certificate entry of the wrong shape (one of `errors` while it is read) is a rejection, not a crash."""
    try:
        yield
    except errors as err:
        raise CertificateError(f"certificate rejected: malformed entry ({type(err).__name__}: {err})") from None


def load_certificate(folder: Path) -> dict:
    """<folder>/certificate.json, checked to be strict JSON (files.py) of the schema (schema.py) for a game no bigger
    than the checker's limit: nothing has been computed from it yet."""
    path = Path(folder) / "certificate.json"
    try:
        cert = json_of(file_bytes(path, MAX_BYTES), path)
    except FileRefused as err:
        if err.missing:
            raise PipelineError(f"no certificate.json in {folder}") from None
        raise CertificateError(f"certificate rejected: {err}") from None
    check_shape(cert)
    check_size(cert)
    return cert


def rules_of(cert: dict, game) -> int | None:
    """The guess limit the certificate is for; it and its mode must be the game's, its objective Total."""
    _check(cert.get("objective", "total") == "total",
           f"it claims objective {cert.get('objective')!r}; a proof here is of the Total objective only")
    _check(cert.get("answer", "wordle") == answer_of(game),
           f"it is for answers {cert.get('answer', 'wordle')}, the game answers {answer_of(game)}")
    _check(bool(cert["hard_mode"]) == bool(game.hard_mode),
           f"it is for hard_mode={cert['hard_mode']}, the game has hard_mode={game.hard_mode}")
    limit = cert.get("max_guesses", guess_limit(game))
    if hasattr(game, "max_guesses"):
        _check(limit == guess_limit(game), f"it is for a limit of {limit} guesses, the game has {guess_limit(game)}")
    return limit


def check_tree_claims(cert: dict, game, folder: Path, limit) -> dict[str, int]:
    """The UB tree is the pinned file, plays the game by its rules and totals ub; its subtree totals by response."""
    total, opener, targets = pinned_tree(folder, "tree.json", cert["ub_tree_sha256"], game, limit, "the UB tree")
    _check(total == cert["ub"], f"the UB tree replays to {total}, not ub={cert['ub']}")
    _check(opener == cert["ub_opener"], "the UB tree does not open with ub_opener")
    return targets


def check_lists(cert: dict, game) -> str:
    """The certificate is for the game's word lists (digests and sizes) and names it: the name the check gives
    the game (naming.py: a shipped game's name only for its own lists, a custom game's with its digests)."""
    _check((cert["guesses_sha256"], cert["secrets_sha256"]) == (game.guesses_digest, game.secrets_digest),
           f"it is for other word lists than game {game.name}")
    _check((cert["n_guesses"], cert["n_secrets"]) == (len(game.guesses), len(game.secrets)), "list sizes differ")
    return checked_name(cert, game)


def pinned_tree(folder: Path, name: str, digest: str, game, limit, what: str) -> tuple[int, str, dict[str, int]]:
    """(total, first guess, subtree totals by response) of the tree file `name` beside the certificate: a plain
    file name with the pinned digest, replayed by the game's rules."""
    _check(isinstance(name, str) and Path(name).name == name and not name.startswith("."),
           f"{what}: {name!r} is not a file name beside the certificate")
    tree_file = Path(folder) / name
    try:
        data = file_bytes(tree_file)
    except FileRefused as err:
        _check(not err.missing, f"no {name} beside it")
        raise CertificateError(f"certificate rejected: {what}: {err}") from None
    _check(hashlib.sha256(data).hexdigest() == digest, f"{name} digest differs")
    try:
        body = json_of(data, tree_file)
        stats = check_tree(body, game, game.hard_mode, limit)
    except (TreeRejected, FileRefused, ValueError) as err:
        raise CertificateError(f"certificate rejected: {what}: {err}") from None
    return stats["total"], body["tree"]["guess"], subtree_totals(body["tree"])


def check_accounts(cert: dict, game, bounds: LowerBounds, represented: dict[str, str],
                   targets: dict[str, int]) -> None:
    """Every guess accounted for once (eliminated, survivor, or `represented` by an opener of its orbit);
    sums, values, optimal openers and K_S as claimed; the UB opener's class targets are its UB tree's
    subtree totals (`targets`)."""
    named = [e["opener"] for e in cert["eliminated"]] + [s["opener"] for s in cert["survivors"]] + list(represented)
    _check(len(named) == len(set(named)) and set(named) == set(game.guesses),
           "eliminated + survivors are not exactly the allowed guesses, each once")
    _check(int(cert["k_s"]) == bounds.k_s, f"k_s={cert['k_s']}, but max_g |Split(S, g)| = {bounds.k_s}")
    ub, n = int(cert["ub"]), len(game.secrets)
    check_elimination_claims(cert["eliminated"], ub, cert["hard_mode"], "ub")
    values = {}
    for s in cert["survivors"]:
        opener = s["opener"]
        listed = {c["response"]: int(c["size"]) for c in s["classes"]}
        _check(len(listed) == len(s["classes"]) and listed == _class_sizes(bounds, game, opener),
               f"survivor {opener}: its classes are not the classes of Split(S, {opener})")
        total = n + sum(int(c["bound"]) for c in s["classes"])
        _check(total == int(s["value"]), f"survivor {opener}: |S| + sum of class bounds is {total}, not {s['value']}")
        check_restated(s, total - n, targets if opener == cert["ub_opener"] else None)
        _check(total >= ub, f"survivor {opener}: value {total} is below ub={ub}, so ub is not proven optimal")
        values[opener] = total
    _check(values.get(cert["ub_opener"]) == ub, "the UB opener is not a survivor whose class bounds sum to ub")
    given = cert.get("upper_bound_given", {"ub": ub, "opener": cert["ub_opener"]})  # older certificates state it
    _check(given["ub"] >= ub and given["opener"] in game.guess_index,
           f"upper_bound_given {given} is not an upper bound at least ub={ub} opening with an allowed guess")
    stand_ins = set(represented.values()) - set(values) - {e["opener"] for e in cert["eliminated"]}
    _check(not stand_ins, f"representative(s) {sorted(stand_ins)} are neither eliminated nor survivors")
    optimal = sorted([w for w, v in values.items() if v == ub] + [w for w, r in represented.items()
                                                                  if values.get(r) == ub])
    _check(sorted(cert["optimal_openers"]) == optimal,
           f"optimal_openers {cert['optimal_openers']} are not the survivors valued ub: {optimal}")
    _check(cert["proven"] is True, "proven is not true")


def check_elimination_claims(eliminated: list[dict], ub: int, hard_mode: bool, name: str) -> None:
    """Each elimination names a bound level and a rule of the game's mode; a stated bound exceeds `ub` (it is
    re-derived in recheck_eliminations)."""
    for e in eliminated:
        _check("bound" not in e or e["bound"] > ub,
               f"opener {e['opener']}: bound {e.get('bound')} does not exceed {name}={ub}")
        _check(int(e["level"]) >= 1, f"opener {e['opener']}: level {e['level']} is not a bound level")
        _check(rule_of(e) == "normal" or (rule_of(e) == "hard" and hard_mode),
               f"opener {e['opener']}: rule {rule_of(e)!r} is not a bound of this game's mode")


def check_restated(entry: dict, class_sum: int, targets: dict[str, int] | None) -> None:
    """The numbers an entry restates are the ones computed here: `sum` is the sum of its class bounds, and a class's
    `target` is the total of that class's subtree in the entry's own tree (`targets`; None when the entry has no
    tree beside the certificate, and then it may state no target)."""
    opener = entry["opener"]
    _check(entry.get("sum", class_sum) == class_sum,
           f"opener {opener}: sum {entry.get('sum')} is not the sum of its class bounds, {class_sum}")
    for c in entry["classes"]:
        if "target" not in c:
            continue
        _check(targets is not None, f"opener {opener} class {c['response']}: it states a target {c['target']} but "
                                    "has no tree beside the certificate to take it from")
        _check(targets.get(c["response"]) == c["target"],
               f"opener {opener} class {c['response']}: target {c['target']} is not the total of that class's "
               f"subtree in the tree, {targets.get(c['response'])}")


def represented_openers(cert: dict, game, codes) -> tuple[dict[str, str], list]:
    """({opener: representative}, verified maps) of the certificate's symmetry claim ({}, [] when none)."""
    if "symmetry" not in cert:
        return {}, []
    try:
        return check_symmetry(cert["symmetry"], game, codes)
    except SymmetryRejected as err:
        raise CertificateError(f"certificate rejected: symmetry: {err}") from None


def below_root_symmetry(cert: dict, game, say) -> ProductSymmetry | None:
    """The certificate's generators (verified by represented_openers) as the product group the exact solver
    restricts by at every node (stabiliser.py); None without symmetry, or (said in one line) when they are not
    symbol and position transpositions: then no symmetry is used below the root."""
    if not cert.get("symmetry", {}).get("generators"):
        return None
    try:
        return ProductSymmetry(cert["symmetry"]["generators"], symbols(game.guesses, game.alphabet),
                               len(game.alphabet))
    except NotAProduct as err:
        say(f"symmetry not used below the root: {err}; exact class bounds are searched in full")
        return None


def symmetry_generators(exact: ExactSolver) -> list[dict] | None:
    """The generators of the exact solver's product group, for the worker processes (None: no symmetry)."""
    return None if exact.symmetry is None else exact.symmetry.generators


def rule_of(elimination: dict) -> str:
    """Which bounds an elimination claims: "normal" (valid in every mode) or "hard" (hard mode only)."""
    return str(elimination.get("rule", "normal"))


def _class_sizes(bounds: LowerBounds, game, opener: str) -> dict[str, int]:
    _, _, sizes, codes = _classes(bounds, game, opener)
    return {text_of(answer_of(game), int(c), game.length): int(t) for c, t in zip(codes, sizes)}


def _classes(bounds: LowerBounds, game, opener: str):
    """(members, starts, sizes, codes) of the non-win classes of Split(S, opener), codes ascending."""
    row = bounds.codes[game.guess_index[opener]]
    members, starts, sizes = split(row, bounds.everyone, n_codes_of(answer_of(game), game.length))
    return members, starts, sizes, row[members[starts]]


def recheck_eliminations(cert: dict, game, bounds: LowerBounds, picked: list[dict], say, hard=None,
                         workers: int = 1, journal=NO_JOURNAL) -> None:
    """V_level(g, S) > ub for each picked opener, computed here, level by level (hard-mode levels by `hard`), or
    read back from this machine's sealed `journal` of an earlier, stopped check of these bytes (journal.py).
    Levels from 2 on are spread over `workers` processes (level 1 is a batch kernel, done here)."""
    ub = int(cert["ub"])
    by_level, entries = defaultdict(list), defaultdict(list)
    for e in picked:
        by_level[(int(e["level"]), rule_of(e))].append(e["opener"])
        entries[(int(e["level"]), rule_of(e))].append(e)
    keys = sorted(by_level)
    jobs = [(level, rule, [game.guess_index[w] for w in by_level[(level, rule)]], ub) for level, rule in keys]
    say("re-deriving " + ", ".join(f"{rule} V_{level} of {len(by_level[(level, rule)])}" for level, rule in keys)
        + " eliminated opener(s)")
    found = {}  # work digest -> V_level(g, S)

    def keep(job, values):
        level, rule, openers, budget = job
        for g, value in zip(openers, values):
            name = elimination_work(level, rule, g, budget)
            found[name] = int(value)
            journal.add(name, int(value))

    for level, rule, openers, budget in jobs:
        for g in openers:
            name = elimination_work(level, rule, g, budget)
            value = journal.known(name)
            if value is not None:
                found[name] = value
    rest = [(level, rule, [g for g in openers if elimination_work(level, rule, g, budget) not in found], budget)
            for level, rule, openers, budget in jobs]
    pooled = [i for i, (level, rule, openers, _) in enumerate(rest)
              if (level >= 2 or rule == "hard") and workers > 1 and openers]
    if pooled:
        pooled_values(game, [rest[i] for i in pooled], workers, say, keep)
    for i, job in enumerate(rest):
        if i not in pooled and job[2]:
            keep(job, opener_values(bounds, hard, *job))
    for (level, rule, openers, budget), key in zip(jobs, keys):
        for e, g in zip(entries[key], openers):
            value = found[elimination_work(level, rule, g, budget)]
            _check(value > ub, f"opener {e['opener']}: {rule} V_{level} re-derived as {value}, not above ub={ub}")
            check_stated_bound(e, value, bounds, hard, game)


def elimination_work(level: int, rule: str, g: int, budget: int) -> str:
    """The journal's name of V_level(g, S) under `rule`, computed against `budget` (journal.py)."""
    return work_digest("opener", int(level), rule, int(g), int(budget))


def check_stated_bound(e: dict, value: int, bounds: LowerBounds, hard, game) -> None:
    """An elimination that states its bound (certificates written before the prover stopped stating it) has
    V_level(g, S) >= that bound.  `value` was computed against the UB and may have stopped just above it; only
    then is V_level computed again, with the stated bound as its budget: it stops at the bound or is exact."""
    if "bound" not in e or value >= e["bound"]:
        return
    level, rule = int(e["level"]), rule_of(e)
    value = opener_values(bounds, hard, level, rule, [game.guess_index[e["opener"]]], e["bound"] - 1)[0]
    _check(value >= e["bound"], f"opener {e['opener']}: {rule} V_{level} re-derived as {value}, below its stated "
                                f"bound {e['bound']}")


def recheck_classes(cert: dict, game, bounds: LowerBounds, exact: ExactSolver, limit, picked, say,
                    hard=None, workers: int = 1, journal=NO_JOURNAL) -> None:
    """Each picked (survivor, class) bound is at most the class's LB_j, hard-mode LB_j or exact MinTotal,
    computed here (exact solves and deep bounds over `workers` processes); an optimal opener other than the
    UB tree's has every class bound equal to its exact MinTotal."""
    say(f"re-deriving {len(picked)} closure class bound(s)")
    tied = set(cert["optimal_openers"]) - {cert["ub_opener"]}  # no tree shows these reach ub: exact values must
    members_of = {opener: _members(bounds, game, opener) for opener in {opener for opener, _ in picked}}
    jobs = [class_job(game, hard, limit, opener, c, opener in tied, members_of[opener]) for opener, c in picked]
    first = {}  # the first job of each distinct piece of work: its value serves every job with the same key
    keys = [first.setdefault(same_work(job, exact, bounds.codes), i) for i, job in enumerate(jobs)]
    names = {i: work_digest("class", *same_work(jobs[i], exact, bounds.codes)) for i in set(keys)}
    values = {i: journal.known(names[i]) for i in names}
    values = {i: value for i, value in values.items() if value is not None}
    costly = [i for i, job in enumerate(jobs)
              if keys[i] == i and i not in values and (job[2] == "exact" or job[3] >= 3)]
    if workers > 1 and len(costly) > 1:
        def keep(job, value):
            journal.add(work_digest("class", *same_work(job, exact, bounds.codes)), int(value))

        values.update(zip(costly, pooled_class_values(game, [jobs[i] for i in costly], workers, say,
                                                      symmetry_generators(exact), keep)))
    for i, ((opener, c), job) in enumerate(zip(picked, jobs)):
        if keys[i] not in values:
            values[keys[i]] = class_value(bounds, hard, exact, job)
            journal.add(names[keys[i]], values[keys[i]])
        value = values[keys[i]]
        claimed, method = int(c["bound"]), str(c["method"])
        _check(value != SOLVABLE, f"survivor {opener} class {c['response']}: the certificate claims no strategy "
                                  f"solves it within the {job[4]} guesses left, but one does")
        _check(value >= claimed, f"survivor {opener} class {c['response']}: {method} re-derived as {value}, "
                                 f"the certificate claims {claimed}")
        _check(opener not in tied or (method == "exact" and value == claimed),
               f"optimal opener {opener} class {c['response']}: its bound {claimed} is not its exact MinTotal "
               f"({method} re-derived as {value}), so the opener is not shown to reach ub")


def same_work(job: tuple, exact: ExactSolver, codes) -> tuple:
    """What re-deriving a class bound depends on: its members, method, level, guesses left, budget and (hard mode)
    the rule its opener's response leaves.  Jobs with the same key have the same value: anagram openers leave the
    same class under the same rule (SPILT and SLIPT after 00000), and it is re-derived once."""
    g, members, method, level, left, budget = job
    rule = exact.start_rule()
    state = b"" if rule is None else rule.after(exact.words[g], int(codes[g, members[0]])).key()
    return members.tobytes(), method, level, left, budget, state


def _members(bounds, game, opener: str) -> dict:
    """The members of each non-win class of the opener, by response text."""
    members, starts, sizes, codes = _classes(bounds, game, opener)
    return {text_of(answer_of(game), int(code), game.length): members[st:st + t]
            for code, st, t in zip(codes, starts, sizes)}


def class_job(game, hard, limit, opener: str, c: dict, tied: bool, members_of: dict) -> tuple:
    """What re-deriving one class bound needs (see parallel.class_value); an unknown method is rejected."""
    members, claimed, method = members_of[c["response"]], int(c["bound"]), str(c["method"])
    g, level = game.guess_index[opener], _bound_level(method)
    if method.startswith("LB_") and level:
        return g, members, "LB", level, None, claimed
    if method.startswith("hard LB_") and level and hard is not None:
        return g, members, "hard LB", level, None, claimed
    if method == "exact":
        return g, members, "exact", 0, None if limit is None else limit - 1, claimed + 1 if tied else claimed
    raise CertificateError(f"certificate rejected: survivor {opener} class {c['response']}: "
                           f"method {method!r} is not a bound of this game's mode")


def _bound_level(method: str) -> int:
    """j of "LB_j" / "hard LB_j" (0 when the method names no level)."""
    digits = method.rsplit("_", 1)[-1]
    return int(digits) if method.endswith(f"LB_{digits}") and digits.isdigit() and int(digits) >= 1 else 0


def verify_certificate(folder: Path, game, sample: int | None = None, seed: int = 0, say=None,
                       workers: int = 1, journal=NO_JOURNAL) -> dict:
    """Check every claim of <folder>/certificate.json; a summary, or CertificateError naming the fault."""
    say = say or (lambda message: None)
    cert = load_certificate(folder)
    with malformed_rejected():
        limit = rules_of(cert, game)
        named = check_lists(cert, game)
        targets = check_tree_claims(cert, game, folder, limit)
        n_codes = n_codes_of(answer_of(game), game.length)
        codes = game_code_matrix(game.guesses, game.secrets, game.alphabet, answer_of(game))
        bounds = LowerBounds(codes, game.guess_of_secret, n_codes)
        represented, _ = represented_openers(cert, game, codes)
        check_accounts(cert, game, bounds, represented, targets)
        classes = [(s["opener"], c) for s in cert["survivors"] for c in s["classes"]]
        eliminated = list(cert["eliminated"])
        if sample is not None:
            rng = random.Random(seed)
            eliminated = rng.sample(eliminated, min(sample, len(eliminated)))
            classes = rng.sample(classes, min(sample, len(classes)))
        solver = ExactSolver(codes, symbols(game.guesses, game.alphabet), game.guess_of_secret, n_codes,
                             len(game.alphabet), game.hard_mode, below_root_symmetry(cert, game, say))
        hard = (HardLowerBounds(bounds, symbols(game.guesses, game.alphabet), len(game.alphabet))
                if game.hard_mode else None)
        recheck_classes(cert, game, bounds, solver, limit, classes, say, hard, workers, journal)
        recheck_eliminations(cert, game, bounds, eliminated, say, hard, workers, journal)
    n_classes = sum(len(s["classes"]) for s in cert["survivors"])
    return {"game": named, "ub": cert["ub"], "optimal_openers": cert["optimal_openers"], "hard_mode": game.hard_mode,
            "max_guesses": limit, "openers_rederived": len(eliminated), "openers_eliminated": len(cert["eliminated"]),
            "classes_rederived": len(classes), "classes": n_classes,
            "complete": len(eliminated) == len(cert["eliminated"]) and len(classes) == n_classes,
            "resumed_values": journal.used}


def stderr_say(message: str) -> None:
    """What the check is doing, on a terminal; the periodic `checked done/total` lines of a long check also in
    logs (stderr not a terminal). A check rejected within its first 30 s still prints one `error:` line."""
    if sys.stderr.isatty() or message.startswith(PROGRESS_PREFIX):
        print(f"verify-certificate: {message}", file=sys.stderr, flush=True)

"""`verify-certificate` for a leaderboard (kind "leaderboard"): the exact values of the k best openers.

What the certificate claims, and how each claim is checked here (with the checker's own code only):
- `leaders`, sorted by (value, opener): each has a tree file beside the certificate (digest pinned) that
  opens with it, plays the game by its rules and totals `value` — so V*(g) <= value; and class bounds, one
  per class of Split(S, g) other than the win, each re-derived here (LB_j, hard-mode LB_j or an exact
  MinTotal with the guesses left) and summing with |S| to `value` — so V*(g) >= value.  Hence V*(g) = value;
- `threshold` is the k-th leader's value; every leader is at most it, and `ties` says whether more than k
  are listed (every opener tied with the k-th is);
- `settled`: openers whose class bounds, re-derived the same way, sum with |S| to more than the threshold;
- `eliminated`: every other opener, with V_level(g, S) > threshold re-derived by the rule it names (the
  hard-mode bounds only in a hard-mode certificate);
- leaders, settled and eliminated name every allowed guess exactly once; K_S = max_g |Split(S, g)|.
So the leaders are exactly the openers whose exact value is at most the k-th best, with those values.
`sample` re-derives only that many eliminations and classes (the result then says partially checked).
"""

import random
from pathlib import Path

from pipeline.proofs.game.answer import game_code_matrix, n_codes_of, symbols
from pipeline.proofs.bounds.lower import LowerBounds
from pipeline.proofs.certificates.optimal import (_check, _class_sizes, check_elimination_claims, check_lists,
                                                  check_restated, load_certificate, malformed_rejected, pinned_tree,
                                                  recheck_classes, recheck_eliminations, rules_of,
                                                  NO_JOURNAL)
from pipeline.proofs.exact.solver import ExactSolver
from pipeline.proofs.bounds.hard import HardLowerBounds
from pipeline.proofs.certificates.tree import answer_of

KIND = "leaderboard"


def check_ranking(cert: dict) -> int:
    """The leaders' order, the threshold (the k-th value) and the ties claim; returns the threshold."""
    k, leaders = int(cert["k"]), cert["leaders"]
    _check(k >= 1, f"k={k} is not a positive count")
    _check(len(leaders) >= k, f"{len(leaders)} leaders listed, fewer than k={k}")
    keys = [(int(e["value"]), e["opener"]) for e in leaders]
    _check(keys == sorted(keys), "the leaders are not sorted by value, then opener")
    threshold = int(cert["threshold"])
    _check(threshold == keys[k - 1][0], f"threshold {threshold} is not the k-th leader's value {keys[k - 1][0]}")
    _check(all(value <= threshold for value, _ in keys), f"a leader is valued above the threshold {threshold}")
    _check(bool(cert["ties"]) == (len(leaders) > k), f"ties={cert['ties']} but {len(leaders)} leaders for k={k}")
    return threshold


def check_sums(entry: dict, game, bounds: LowerBounds, targets: dict[str, int] | None = None) -> int:
    """An entry's classes are those of Split(S, opener); |S| + its class bounds is its value, returned; its `sum`
    and class targets (the subtree totals of its tree, `targets`) are as computed here."""
    opener = entry["opener"]
    listed = {c["response"]: int(c["size"]) for c in entry["classes"]}
    _check(len(listed) == len(entry["classes"]) and listed == _class_sizes(bounds, game, opener),
           f"opener {opener}: its classes are not the classes of Split(S, {opener})")
    total = len(game.secrets) + sum(int(c["bound"]) for c in entry["classes"])
    _check(total == int(entry["value"]), f"opener {opener}: |S| + sum of class bounds is {total}, not {entry['value']}")
    check_restated(entry, total - len(game.secrets), targets)
    return total


def check_accounts(cert: dict, game, bounds: LowerBounds, threshold: int, folder: Path, limit) -> None:
    """Every guess named once; leaders' trees and sums meet at their values; every other opener above threshold."""
    named = [e["opener"] for part in ("leaders", "settled", "eliminated") for e in cert[part]]
    _check(len(named) == len(set(named)) and set(named) == set(game.guesses),
           "leaders + settled + eliminated are not exactly the allowed guesses, each once")
    _check(int(cert["k_s"]) == bounds.k_s, f"k_s={cert['k_s']}, but max_g |Split(S, g)| = {bounds.k_s}")
    for e in cert["leaders"]:
        total, first, targets = pinned_tree(folder, e["tree"], e["tree_sha256"], game, limit,
                                            f"the tree of {e['opener']}")
        value = check_sums(e, game, bounds, targets)
        _check(first == e["opener"], f"the tree of {e['opener']} opens with {first}")
        _check(total == value, f"leader {e['opener']}: its tree totals {total}, its class bounds {value}")
    for e in cert["settled"]:
        _check(check_sums(e, game, bounds) > threshold,
               f"opener {e['opener']}: value {e['value']} does not exceed the threshold {threshold}")
    check_elimination_claims(cert["eliminated"], threshold, cert["hard_mode"], "the threshold")


def verify_leaderboard(folder: Path, game, sample: int | None = None, seed: int = 0, say=None,
                       workers: int = 1, journal=NO_JOURNAL) -> dict:
    """Check every claim of <folder>/certificate.json (kind leaderboard); a summary, or CertificateError."""
    say = say or (lambda message: None)
    cert = load_certificate(folder)
    with malformed_rejected():
        _check(cert.get("kind") == KIND, f"it is of kind {cert.get('kind')!r}, not {KIND!r}")
        limit = rules_of(cert, game)
        named = check_lists(cert, game)
        n_codes = n_codes_of(answer_of(game), game.length)
        codes = game_code_matrix(game.guesses, game.secrets, game.alphabet, answer_of(game))
        bounds = LowerBounds(codes, game.guess_of_secret, n_codes)
        check_accounts(cert, game, bounds, int(cert["threshold"]), folder, limit)
        threshold = check_ranking(cert)
        classes = [(e["opener"], c) for part in ("leaders", "settled") for e in cert[part] for c in e["classes"]]
        eliminated = list(cert["eliminated"])
        if sample is not None:
            rng = random.Random(seed)
            eliminated = rng.sample(eliminated, min(sample, len(eliminated)))
            classes = rng.sample(classes, min(sample, len(classes)))
        words = symbols(game.guesses, game.alphabet)
        solver = ExactSolver(codes, words, game.guess_of_secret, n_codes, len(game.alphabet), game.hard_mode)
        hard = HardLowerBounds(bounds, words, len(game.alphabet)) if game.hard_mode else None
        claims = {"ub": threshold, "optimal_openers": [], "ub_opener": None}  # class bounds need only be bounds
        recheck_classes(claims, game, bounds, solver, limit, classes, say, hard, workers, journal)
        recheck_eliminations(claims, game, bounds, eliminated, say, hard, workers, journal)
    n_classes = sum(len(e["classes"]) for part in ("leaders", "settled") for e in cert[part])
    return {"game": named, "k": cert["k"], "threshold": threshold, "ties": cert["ties"], "hard_mode": game.hard_mode,
            "max_guesses": limit, "leaders": [(e["opener"], int(e["value"])) for e in cert["leaders"]],
            "openers_rederived": len(eliminated), "openers_eliminated": len(cert["eliminated"]),
            "classes_rederived": len(classes), "classes": n_classes,
            "complete": len(eliminated) == len(cert["eliminated"]) and len(classes) == n_classes,
            "resumed_values": journal.used}

"""Independent re-check of a prove artifact: `python -m pipeline verify-certificate <dir>`.

Re-checks the UB tree by scalar replay, recomputes every sum, checks that every
allowed guess is accounted for, and re-derives a sample of the elimination
bounds and every closure class from the code matrix, rebuilt here from the
word lists (not read from any artifact).
"""

import hashlib
import json
import random
from pathlib import Path

from pipeline.errors import PipelineError
from pipeline.feedback.matrix import game_matrix
from pipeline.games.answer import code_to_colours
from pipeline.games.game import Game
from pipeline.search.bounds import BoundSolver, opener_values
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.stages.prove import class_bound, guesses_left, survivor_classes
from pipeline.stages.trees import verify_tree_file


class CertificateError(PipelineError):
    pass


def _check(condition: bool, where: str) -> None:
    if not condition:
        raise CertificateError(f"certificate rejected: {where}")


def load_certificate(folder: Path) -> dict:
    try:
        return json.loads((Path(folder) / "certificate.json").read_text())
    except FileNotFoundError:
        raise PipelineError(f"no certificate.json in {folder}") from None
    except ValueError as err:
        raise CertificateError(f"certificate rejected: certificate.json is not valid JSON ({err})") from None


def check_structure(cert: dict, game: Game, folder: Path) -> None:
    _check((cert["guesses_sha256"], cert["secrets_sha256"]) == (game.guesses_digest, game.secrets_digest),
           f"it is for other word lists than game {game.name}")
    tree_file = Path(folder) / "tree.json"
    _check(hashlib.sha256(tree_file.read_bytes()).hexdigest() == cert["ub_tree_sha256"], "tree.json digest differs")
    stats = verify_tree_file(tree_file, game)
    _check(stats["total"] == cert["ub"], f"the UB tree replays to {stats['total']}, not ub={cert['ub']}")
    _check(json.loads(tree_file.read_text())["tree"]["guess"] == cert["ub_opener"], "the tree does not open with ub_opener")
    named = [e["opener"] for e in cert["eliminated"]] + [s["opener"] for s in cert["survivors"]]
    _check(sorted(named) == sorted(game.guesses), "eliminated + survivors are not exactly the allowed guesses")
    for e in cert["eliminated"]:
        _check(e["bound"] > cert["ub"], f"opener {e['opener']}: bound {e['bound']} does not exceed ub")


def check_sums(cert: dict, game: Game, codes) -> None:
    n = len(game.secrets)
    for s in cert["survivors"]:
        opener = s["opener"]
        expected = {code_to_colours(c, game.length): len(m) for c, m in survivor_classes(codes, game, game.guess_index[opener])}
        listed = {c["response"]: c["size"] for c in s["classes"]}
        _check(listed == expected, f"survivor {opener}: its classes are not the classes of Split(S, {opener})")
        total = n + sum(c["bound"] for c in s["classes"])
        _check(total == s["value"], f"survivor {opener}: |S| + sum of class bounds is {total}, not {s['value']}")
        _check(total >= cert["ub"], f"survivor {opener}: value {total} is below ub={cert['ub']} (not proven)")
    ub_entry = next((s for s in cert["survivors"] if s["opener"] == cert["ub_opener"]), None)
    _check(ub_entry is not None and ub_entry["value"] == cert["ub"], "the UB opener's class bounds do not sum to ub")
    _check(cert["proven"] is True, "proven is not true")


def rederive(cert: dict, game: Game, codes, sample: int, seed: int = 0, memo_bits: int = 20) -> dict:
    """Recompute a sample of elimination bounds and every closure class bound."""
    k_s = int(cert["k_s"])
    solver = BoundSolver(codes, game.secret_of_guess, game.n_codes, k_s)
    _check(k_s == int(solver.index.parts.max()), f"k_s={k_s} is not max_g |Split(S, g)|")
    picked = random.Random(seed).sample(cert["eliminated"], min(sample, len(cert["eliminated"])))
    for e in picked:
        values, _ = opener_values(codes, game.secret_of_guess, game.n_codes, k_s,
                                  [game.guess_index[e["opener"]]], e["level"], cert["ub"], solver=solver)
        _check(values[0] > cert["ub"], f"opener {e['opener']}: V_{e['level']} re-derived as {values[0]} ≤ ub")
    classes = 0
    for s in cert["survivors"]:
        opener = game.guess_index[s["opener"]]
        members = {code_to_colours(c, game.length): (c, m) for c, m in survivor_classes(codes, game, opener)}
        for c in s["classes"]:
            code, group = members[c["response"]]
            state = (update_state(*initial_state(game.length), game.encoded_guesses()[opener], code)
                     if game.hard_mode else None)
            bound, _ = class_bound(group, c.get("target"), codes, game.secret_of_guess, game.n_codes, k_s,
                                   int(c["method"][3:]) if c["method"].startswith("LB_") else 0, memo_bits, state,
                                   game.encoded_guesses(), guesses_left(game))
            _check(bound >= c["bound"], f"survivor {s['opener']} class {c['response']}: bound re-derived as {bound}, certificate says {c['bound']}")
            classes += 1
    return {"openers_rederived": len(picked), "classes_rederived": classes}


def verify_certificate(folder: Path, game: Game, sample: int = 50) -> dict:
    cert = load_certificate(folder)
    try:
        check_structure(cert, game, folder)
        codes = game_matrix(game)
        check_sums(cert, game, codes)
        return {"ub": cert["ub"], "optimal_openers": cert["optimal_openers"], **rederive(cert, game, codes, sample)}
    except (KeyError, TypeError, ValueError) as err:
        raise CertificateError(f"certificate rejected: malformed entry ({type(err).__name__}: {err})") from None

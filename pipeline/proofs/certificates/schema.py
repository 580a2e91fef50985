"""The shape of a certificate, checked before anything is computed from it.

A certificate is strict JSON (no NaN or Infinity, no key given twice: pipeline/proofs/files/reader.py) whose every field has one exact type:
a count is an int (never a bool, never a float such as 544.0), a flag is a bool (never the string "false"),
and every number lies in a stated range, so no later step truncates, overflows or loops on it.  A field this
checker does not know is refused: a certificate states nothing its checker leaves unread.  Then the size of
the game the certificate names is computed from its claimed parameters and refused above MAX_CELLS, before
any word list is generated or any code matrix is built.
"""

import json
import math
import re

from pipeline import PipelineError

MAX_BYTES = 64 << 20  # certificate.json larger than this is refused unread (Wordle's is about 2 MB)
MAX_CELLS = 320_000_000  # guesses x secrets of the code matrix a check may build (Wordle: 47 million; classic Nerdle: 314)
MAX_NUMBER = (1 << 62) - 1  # totals, bounds and sizes; the prover's "impossible" class bound 2**40 fits
MAX_LEVEL = 64  # V_level / LB_level: the prover's funnel stops by level 10
NAME = re.compile(r"^[A-Za-z0-9_\-]{1,64}\Z")  # a game name: it becomes the override game=<name>
NAME_RULE = "1 to 64 letters, digits, _ or -"  # NAME in words (also what a run accepts: pipeline/config/settings.py)
DIGEST = re.compile(r"^[0-9a-f]{64}\Z")  # \Z, not $: $ also matches before a final line break
MAX_GUESSES = 1000  # the highest guess limit a certificate may state (a run is refused a higher one)


class CertificateError(PipelineError):
    pass


def rejected(why: str) -> CertificateError:
    return CertificateError(f"certificate rejected: {why}")


# ---- field types ------------------------------------------------------------------------------------------------
# A type is a function (value, where) -> None raising CertificateError; `where` names the field, e.g.
# survivors[0].classes[3].bound.


def whole(low: int = 0, high: int = MAX_NUMBER):
    """An int (not a bool) in [low, high]."""
    def check(value, where):
        if type(value) is not int:
            raise rejected(f"{where} must be a whole number, not {_shown(value)}")
        if not low <= value <= high:
            raise rejected(f"{where} = {value} is outside {low}..{high}")
    return check


def flag(value, where):
    if type(value) is not bool:
        raise rejected(f"{where} must be true or false, not {_shown(value)}")


def text(pattern: re.Pattern | None = None, max_length: int = 1000):
    """A string (of at most `max_length` characters, matching `pattern` when given)."""
    def check(value, where):
        if type(value) is not str:
            raise rejected(f"{where} must be a string, not {_shown(value)}")
        if len(value) > max_length or (pattern is not None and not pattern.match(value)):
            raise rejected(f"{where} = {value[:80]!r} is not a valid value")
    return check


def nullable(kind):
    def check(value, where):
        if value is not None:
            kind(value, where)
    return check


def listed(kind, max_length: int = MAX_CELLS):
    def check(value, where):
        if type(value) is not list:
            raise rejected(f"{where} must be a list, not {_shown(value)}")
        if len(value) > max_length:
            raise rejected(f"{where} lists {len(value)} items, above the limit of {max_length}")
        for i, item in enumerate(value):
            kind(item, f"{where}[{i}]")
    return check


def record(required: dict, optional: dict | None = None):
    """An object with every `required` field, any of the `optional` ones, and nothing else."""
    optional = optional or {}

    def check(value, where):
        if type(value) is not dict:
            raise rejected(f"{where or 'the certificate'} must be an object, not {_shown(value)}")
        prefix = f"{where}." if where else ""
        for key in required:
            if key not in value:
                raise rejected(f"{prefix}{key} is missing")
        unknown = sorted(set(value) - set(required) - set(optional))
        if unknown:
            raise rejected(f"{prefix}{unknown[0]} is not a field this checker verifies")
        for key, kind in {**required, **optional}.items():
            if key in value:
                kind(value[key], f"{prefix}{key}")
    return check


def _shown(value) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return f"{type(value).__name__} {json.dumps(value)[:40]}"


# ---- the kinds of certificate: a proof, a leaderboard, an infeasible guess limit -----------------------------------------------------------------------------

COUNT, TOTAL, WORD = whole(), whole(), text(max_length=200)
GAME = {"game": text(NAME), "hard_mode": flag, "guesses_sha256": text(DIGEST), "secrets_sha256": text(DIGEST),
        "n_guesses": whole(1), "n_secrets": whole(1)}
GAME_OPTIONAL = {"objective": text(max_length=40), "max_guesses": nullable(whole(1, MAX_GUESSES)),
                 "answer": text(NAME), "length": whole(1, 64), "n_symbols": whole(1, 256)}
CLASS = record({"response": text(max_length=200), "size": whole(1), "bound": TOTAL, "method": text(max_length=40)},
               {"target": TOTAL})
ELIMINATION = record({"opener": WORD, "level": whole(1, MAX_LEVEL)}, {"rule": text(max_length=40), "bound": TOTAL})
SURVIVOR_FIELDS = {"opener": WORD, "classes": listed(CLASS), "value": TOTAL}
GENERATOR = record({"symbols": listed(whole(0, 255), 256), "positions": listed(whole(0, 63), 64)})
SYMMETRY = record({"generators": listed(GENERATOR, 1000),
                   "openers": listed(record({"opener": WORD, "representative": WORD}))})
PROVE = record({**GAME, "k_s": COUNT, "ub": TOTAL, "ub_opener": WORD, "ub_tree_sha256": text(DIGEST),
                "eliminated": listed(ELIMINATION), "survivors": listed(record(SURVIVOR_FIELDS, {"sum": TOTAL})),
                "optimal_openers": listed(WORD), "proven": flag},
               {**GAME_OPTIONAL, "upper_bound_given": record({"ub": TOTAL, "opener": WORD}), "symmetry": SYMMETRY})
LEADER = record({**SURVIVOR_FIELDS, "tree": text(max_length=300), "tree_sha256": text(DIGEST)}, {"sum": TOTAL})
LEADERBOARD = record({**GAME, "kind": text(max_length=40), "k_s": COUNT, "k": whole(1), "threshold": TOTAL,
                      "ties": flag, "leaders": listed(LEADER), "settled": listed(record(SURVIVOR_FIELDS, {"sum": TOTAL})),
                      "eliminated": listed(ELIMINATION)}, GAME_OPTIONAL)

WITNESS = record({"opener": WORD, "response": text(max_length=200), "size": whole(1), "reason": text(max_length=40)})
INFEASIBLE = record({**GAME, "kind": text(max_length=40), "max_guesses": whole(1, MAX_GUESSES),
                     "feasible": flag, "proven": flag, "openers": listed(WITNESS)},
                    {**GAME_OPTIONAL, "max_guesses": whole(1, MAX_GUESSES), "symmetry": SYMMETRY})


def check_shape(cert) -> None:
    """Every field of the certificate has its exact type and range, and there is no other field."""
    if type(cert) is dict and cert.get("kind") == "leaderboard":
        LEADERBOARD(cert, "")
    elif type(cert) is dict and cert.get("kind") == "infeasible":
        INFEASIBLE(cert, "")
    else:
        PROVE(cert, "")


# ---- the size of the claimed game ----------------------------------------------------------------------------


def implied_codes(cert: dict) -> int | None:
    """How many words a generated game of the certificate's parameters has (None for a game of word lists):
    colours ** pegs for Mastermind, 10! / (10 - length)! for Bulls and Cows (distinct digits)."""
    answer = cert.get("answer", "wordle")
    if answer == "mastermind":
        return cert["n_symbols"] ** cert["length"]
    if answer == "bulls_and_cows":
        return math.perm(10, cert["length"]) if cert["length"] <= 10 else 0
    return None


def check_size(cert: dict) -> None:
    """The game is no bigger than MAX_CELLS code-matrix cells, judged from the claimed parameters before any
    list is generated; a generated game's claimed list sizes are the ones its parameters imply."""
    answer = cert.get("answer", "wordle")
    if answer != "wordle" and ("length" not in cert or "n_symbols" not in cert):
        raise rejected(f"a certificate for answers {answer} must state length and n_symbols")
    words = implied_codes(cert)
    if words is not None:
        cells = words * words
        if cells > MAX_CELLS:
            raise rejected(f"{answer} with length {cert['length']} and {cert['n_symbols']} symbols has {words} codes, "
                           f"a code matrix of {cells} cells, above the checker's limit of {MAX_CELLS}")
        if (cert["n_guesses"], cert["n_secrets"]) != (words, words):
            raise rejected(f"{answer} with length {cert['length']} and {cert['n_symbols']} symbols has {words} codes, "
                           f"not n_guesses={cert['n_guesses']}, n_secrets={cert['n_secrets']}")
    cells = cert["n_guesses"] * cert["n_secrets"]
    if cells > MAX_CELLS:
        raise rejected(f"{cert['n_guesses']} guesses x {cert['n_secrets']} secrets is a code matrix of {cells} cells, "
                       f"above the checker's limit of {MAX_CELLS}")

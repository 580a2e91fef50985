"""`verify-certificate` for a certificate of kind infeasible: no strategy finds every secret within L guesses.

What the certificate claims, and how each claim is checked here, from the definitions and with the checker's
own code only (its answering function, its split, its hard-mode rule):
- the rules are the game's (mode, the limit L, which must be a limit), `feasible` is false and `proven` true;
- every allowed guess is an opener with a witness, or is represented by one (symmetry: each generator verified
  to be an automorphism of the code matrix computed here, symmetry.py; not accepted in hard mode);
- an opener's witness is a non-win response: its class C of Split(S, opener) is recomputed here and has the
  stated size, and C cannot be solved within L - 1 guesses (in hard mode, from the rule that response leaves):
  "counting": |C| > reach(L - 1, m), m the most non-win classes any guess makes on C, where
  reach(j, m) = 1 + m * reach(j - 1, m), reach(0, m) = 0 bounds what j guesses can find (the first guess finds
  at most itself, every other secret lies in one of at most m classes, each a set whose m is no larger);
  "search": no strategy within L - 1 guesses: with at most 3 left decided by shallow.py (one secret; a guess
  giving each secret its own response; a guess leaving only classes one more guess separates), with more by an
  exhaustive search (`Feasibility`) over every legal guess.
A strategy must open with some guess, and its witness class is then not found in time: so no strategy exists.
`sample` re-derives only that many witnesses, and the result then says the certificate was only partially
checked.  With `workers` > 1 the witnesses are re-derived in that many fresh processes, each computing the code
matrix again from the word lists.
"""

import random
from pathlib import Path

import numpy as np

from pipeline.proofs.game.answer import game_code_matrix, n_codes_of, symbols, text_of
from pipeline.proofs.bounds.lower import split
from pipeline.proofs.certificates.optimal import (MALFORMED, CertificateError, _check, check_lists, load_certificate,
                                                  malformed_rejected, rules_of)
from pipeline.proofs.solvable.within import Feasibility, most_parts, reach
from pipeline.proofs.game.hard_mode import Rule
from pipeline.proofs.certificates.parallel import SAY_EVERY_SECONDS, checker_pool, counted
from pipeline.proofs.symmetry.generators import SymmetryRejected, check_symmetry
from pipeline.proofs.certificates.tree import answer_of

KIND = "infeasible"
REASONS = ("counting", "search")
CHUNKS_PER_WORKER = 16  # witnesses are dealt out in this many chunks per worker process
_worker: dict = {}


def check_openers(cert: dict, game, codes) -> dict[str, str]:
    """Every allowed guess is listed once or represented by a listed opener of its orbit; {opener: representative}."""
    represented = {}
    if "symmetry" in cert:
        _check(not game.hard_mode, "it claims symmetries in hard mode, which this checker does not accept")
        try:
            represented, _ = check_symmetry(cert["symmetry"], game, codes)
        except SymmetryRejected as err:
            raise CertificateError(f"certificate rejected: symmetry: {err}") from None
    named = [e["opener"] for e in cert["openers"]]
    _check(len(named) == len(set(named)) and not set(named) & set(represented)
           and set(named) | set(represented) == set(game.guesses),
           "openers + represented openers are not exactly the allowed guesses, each once")
    stand_ins = set(represented.values()) - set(named)
    _check(not stand_ins, f"representative(s) {sorted(stand_ins)[:5]} have no witness of their own")
    return represented


def check_witness(entry: dict, game, codes, search: Feasibility, limit: int) -> None:
    """The opener's class for the stated response is as stated and cannot be solved within limit - 1 guesses."""
    opener, response, reason = entry["opener"], entry["response"], entry["reason"]
    _check(reason in REASONS, f"opener {opener}: reason {reason!r} is not one of {', '.join(REASONS)}")
    g = game.guess_index[opener]
    answer, n_codes = answer_of(game), search.n_codes
    members, starts, sizes = split(codes[g], np.arange(codes.shape[1]).astype(np.int32), n_codes)
    found = [(st, t) for st, t in zip(starts, sizes)
             if text_of(answer, int(codes[g, members[st]]), game.length) == response]
    _check(len(found) == 1, f"opener {opener}: {response!r} is not a response it gets other than the win")
    start, size = found[0]
    _check(int(size) == entry["size"], f"opener {opener}: class {response} has {size} secrets, not {entry['size']}")
    cls = members[start:start + size]
    if reason == "counting":
        m = int(most_parts(codes, cls, search.win).max())
        _check(len(cls) > reach(limit - 1, m), f"opener {opener}: class {response} has {len(cls)} secrets, no more "
                                               f"than {reach(limit - 1, m)} that {limit - 1} guesses can find with "
                                               f"at most {m} classes per guess: counting shows nothing")
        return
    rule = Rule(game.length, len(game.alphabet)).after(search.words[g], int(codes[g, cls[0]])) \
        if game.hard_mode else None
    _check(not search.within(cls, limit - 1, rule),
           f"opener {opener}: class {response} can be solved within the {limit - 1} guesses left")


def verify_infeasible(folder: Path, game, sample: int | None = None, seed: int = 0, say=None,
                      workers: int = 1) -> dict:
    """Check every claim of <folder>/certificate.json (kind infeasible); a summary, or CertificateError."""
    say = say or (lambda message: None)
    cert = load_certificate(folder)
    with malformed_rejected((*MALFORMED, IndexError)):
        _check(cert.get("kind") == KIND, f"it is of kind {cert.get('kind')!r}, not {KIND!r}")
        limit = rules_of(cert, game)
        _check(limit is not None, "it claims no guess limit: without one every game has a strategy")
        _check(cert["feasible"] is False and cert["proven"] is True, "it does not claim feasible false, proven true")
        named = check_lists(cert, game)
        codes = game_code_matrix(game.guesses, game.secrets, game.alphabet, answer_of(game))
        represented = check_openers(cert, game, codes)
        picked = list(cert["openers"])
        if sample is not None:
            picked = random.Random(seed).sample(picked, min(sample, len(picked)))
        say(f"re-deriving the witnesses of {len(picked)} opener(s)")
        rederive(picked, game, codes, limit, workers, say)
    reasons = [e["reason"] for e in cert["openers"]]
    return {"game": named, "kind": KIND, "max_guesses": limit, "hard_mode": game.hard_mode,
            "openers": len(cert["openers"]),
            "represented": len(represented), "by_counting": reasons.count("counting"),
            "by_search": reasons.count("search"), "openers_rederived": len(picked),
            "complete": len(picked) == len(cert["openers"])}


def searcher(game, codes) -> Feasibility:
    return Feasibility(codes, symbols(game.guesses, game.alphabet), game.guess_of_secret,
                       n_codes_of(answer_of(game), game.length), len(game.alphabet), game.hard_mode)


def rederive(entries: list, game, codes, limit: int, workers: int, say) -> None:
    """check_witness of every entry, here or over `workers` fresh processes (CertificateError at the first
    refused witness)."""
    if workers <= 1 or len(entries) < 2 * workers:
        search = searcher(game, codes)
        for _ in counted((check_witness(e, game, codes, search, limit) for e in entries), len(entries),
                         "witnesses", say):
            pass
        return
    n = min(len(entries), workers * CHUNKS_PER_WORKER)
    chunks = [entries[i::n] for i in range(n)]
    with checker_pool(workers, _start, (game, limit)) as pool:
        for _ in counted(pool.map(_check_chunk, chunks, SAY_EVERY_SECONDS), len(chunks), "chunks of witnesses", say):
            pass


def _start(game, limit: int) -> None:
    codes = game_code_matrix(game.guesses, game.secrets, game.alphabet, answer_of(game))
    _worker.update(game=game, codes=codes, search=searcher(game, codes), limit=limit)


def _check_chunk(entries: list) -> int:
    for entry in entries:
        check_witness(entry, _worker["game"], _worker["codes"], _worker["search"], _worker["limit"])
    return len(entries)

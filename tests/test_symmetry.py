"""Game symmetries: the prover's generators and orbits against brute force, and the checker's verification of
the symmetry claims of a certificate (forged maps, wrong representatives; Wordle untouched)."""

import json
from itertools import permutations

import numpy as np
import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.proofs.game import answer as checker
from pipeline.proofs.symmetry.generators import SymmetryRejected, check_symmetry, verified_map
from pipeline.search.symmetry import generators as symmetry


def word_image(word, alphabet, symbols, positions):
    return "".join(alphabet[symbols[alphabet.index(word[p])]] for p in positions)


def brute_orbits(game):
    """Orbit of every guess under all symbol x position permutations that are automorphisms, by the scalar
    answering function on every pair."""
    respond = game.answering.code
    maps = []
    for sym in permutations(range(len(game.alphabet))):
        for pos in permutations(range(game.length)):
            image = {w: word_image(w, game.alphabet, sym, pos) for w in game.guesses}
            if set(image.values()) != set(game.guesses):
                continue
            if all(respond(image[g], image[s]) == respond(g, s) for g in game.guesses for s in game.secrets):
                maps.append(image)
    return {g: frozenset(m[g] for m in maps) for g in game.guesses}, maps


def prover_orbits(game):
    codes = game_matrix(game)
    words, secrets = game.encoded_guesses(), game.encoded_secrets()
    gens = symmetry.find_generators(words, secrets, codes, len(game.alphabet))
    rep = symmetry.orbit_representatives(len(game.guesses),
                                         symmetry.guess_permutations(words, secrets, codes, len(game.alphabet), gens))
    return gens, rep


@pytest.mark.parametrize("overrides, n_maps, n_orbits", [({"pegs": 3, "colours": 3}, 36, 3),
                                                         ({"pegs": 2, "colours": 4}, 48, 2),
                                                         ({"pegs": 3, "colours": 3, "answer": "wordle"}, 6, 5)])
def test_orbits_match_brute_force(overrides, n_maps, n_orbits):
    """Mastermind: every colour and position permutation is an automorphism; Wordle's colours on all strings
    keep symbol permutations only (moving positions moves the colours)."""
    game = builtin_game("mastermind", **overrides)
    orbits, maps = brute_orbits(game)
    gens, rep = prover_orbits(game)
    assert len(maps) == n_maps and len(np.unique(rep)) == n_orbits
    for g, word in enumerate(game.guesses):
        members = {game.guesses[h] for h in np.flatnonzero(rep == rep[g])}
        assert members == orbits[word]
        assert game.guesses[rep[g]] == min(orbits[word])  # the alphabetically first word represents
    if overrides.get("answer") == "wordle":
        assert all(gen["positions"] == list(range(game.length)) for gen in gens)


def test_exact_values_are_equal_on_each_orbit():
    """V*(sigma g) = V*(g): the exact value of every opener of a small Mastermind is its representative's."""
    from pipeline.search.exact.solver import ExactSolver
    from pipeline.search.matrix import Matrix

    game = builtin_game("mastermind", pegs=3, colours=4)
    _, rep = prover_orbits(game)
    solver = ExactSolver(Matrix.of_game(game_matrix(game), game))
    values = np.array([solver.guess_value(g)[0] for g in range(len(game.guesses))])
    assert len(np.unique(rep)) == 3 and len(np.unique(values)) > 1
    assert (values == values[rep]).all()


def test_preferred_opener_represents_its_orbit():
    game = builtin_game("mastermind", pegs=3, colours=3)
    codes = game_matrix(game)
    words = game.encoded_guesses()
    gens = symmetry.find_generators(words, words, codes, 3)
    perms = symmetry.guess_permutations(words, words, codes, 3, gens)
    rep = symmetry.orbit_representatives(len(game.guesses), perms, [game.guess_index["213"]])
    assert game.guesses[rep[game.guess_index["123"]]] == "213" and rep[game.guess_index["213"]] == game.guess_index["213"]
    assert game.guesses[rep[game.guess_index["333"]]] == "111"


def test_wordle_lists_have_no_symmetry():
    game = builtin_game("mini_nerdle")
    assert symmetry.find_generators(game.encoded_guesses(), game.encoded_secrets(), game_matrix(game),
                                    len(game.alphabet)) == []


def test_checker_rejects_maps_that_are_not_automorphisms():
    game = builtin_game("mastermind", pegs=3, colours=3, answer="wordle")
    codes = checker.game_code_matrix(game.guesses, game.secrets, game.alphabet, game.answer)
    assert len(verified_map({"symbols": [1, 0, 2], "positions": [0, 1, 2]}, game, codes)) == 27
    with pytest.raises(SymmetryRejected, match="changes the answer"):
        verified_map({"symbols": [0, 1, 2], "positions": [1, 0, 2]}, game, codes)
    with pytest.raises(SymmetryRejected, match="not a permutation"):
        verified_map({"symbols": [0, 0, 2], "positions": [0, 1, 2]}, game, codes)
    nerdle = builtin_game("mini_nerdle")
    swap = list(range(len(nerdle.alphabet)))
    swap[:2] = 1, 0
    with pytest.raises(SymmetryRejected, match="which is not one of the guesses"):
        verified_map({"symbols": swap, "positions": list(range(nerdle.length))}, nerdle, None)


# ---- certificates ------------------------------------------------------------------------------------------------


def _prove(tmp_path_factory, *overrides):
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    root = tmp_path_factory.mktemp("sym")
    cfg = compose_config([f"paths.outputs={root}", "progress=false", "experiment=prove", "game=mastermind",
                             *overrides])
    game = load_game(cfg.game)
    return run_stage(cfg.stage, cfg, game, ArtifactStore(root)).path, game


def test_upper_bound_tries_one_opener_per_orbit(tmp_path_factory, ray_session):
    """ApMinTotal of a symmetric opener equals its orbit mate's, so `all` with symmetry tries one per orbit
    and finds the same UB as trying every opener."""
    import pyarrow.parquet as pq

    overrides = ("stage=upper_bound", "game.pegs=3", "game.colours=4", "stage.openers=all")
    reduced, game = _prove(tmp_path_factory, *overrides)
    full, _ = _prove(tmp_path_factory, *overrides, "stage.symmetry=false")
    total = {path: dict(zip(*pq.read_table(path / "openers.parquet").select(["opener", "total"]).to_pydict().values()))
             for path in (reduced, full)}
    _, rep = prover_orbits(game)
    assert len(total[reduced]) == len(np.unique(rep)) == 3 and len(total[full]) == len(game.guesses)
    for word, value in total[full].items():
        assert total[reduced][game.guesses[rep[game.guess_index[word]]]] == value
    summaries = [json.loads((path / "summary.json").read_text()) for path in (reduced, full)]
    assert summaries[0]["ub"] == summaries[1]["ub"] == min(total[full].values())


@pytest.fixture(scope="module")
def mastermind_proof(tmp_path_factory, ray_session):
    return _prove(tmp_path_factory, "game.pegs=3", "game.colours=3")


def edited(folder, tmp_path, edit):
    import shutil

    out = tmp_path / f"e{len(list(tmp_path.glob('e*')))}"
    shutil.copytree(folder, out)
    cert = json.loads((out / "certificate.json").read_text())
    edit(cert)
    (out / "certificate.json").write_text(json.dumps(cert))
    return out


def test_symmetric_proof_is_verified(mastermind_proof):
    from pipeline.proofs.certificates.optimal import verify_certificate

    folder, game = mastermind_proof
    cert = json.loads((folder / "certificate.json").read_text())
    reps = {s["opener"] for s in cert["survivors"]} | {e["opener"] for e in cert["eliminated"]}
    assert reps == {"111", "112", "123"} and len(cert["symmetry"]["openers"]) == 27 - 3
    result = verify_certificate(folder, game)
    assert result["complete"] and result["ub"] == 73
    optimal = set(result["optimal_openers"])
    assert cert["ub_opener"] in optimal and len(optimal) in (6, 18, 24)  # whole orbits: 123-type 6, 112-type 18
    rep = {e["opener"]: e["representative"] for e in cert["symmetry"]["openers"]}
    assert optimal == {w for w in game.guesses if rep.get(w, w) in optimal}


def _orbit_mate(cert):
    """Another represented opener of the first listed opener's orbit (itself a stand-in, proven nothing)."""
    first = cert["symmetry"]["openers"][0]
    return next(e["opener"] for e in cert["symmetry"]["openers"][1:] if e["representative"] == first["representative"])


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["symmetry"]["openers"][0].__setitem__(
        "representative", next(e["representative"] for e in c["symmetry"]["openers"]
                               if e["representative"] != c["symmetry"]["openers"][0]["representative"])),
     "is not in the orbit of opener"),
    (lambda c: c["symmetry"]["generators"].append({"symbols": [0, 1, 2], "positions": [0, 0, 2]}),
     r"generator \d+ is not an automorphism: positions .* is not a permutation"),
    (lambda c: c["symmetry"]["openers"].pop(), "not exactly the allowed guesses"),
    (lambda c: c["symmetry"]["openers"][0].__setitem__("representative", _orbit_mate(c)),
     r"representative\(s\) .* are neither eliminated nor survivors"),
    (lambda c: c["symmetry"].__setitem__("generators", []), "is not in the orbit"),
    (lambda c: c.__setitem__("optimal_openers", [c["ub_opener"]]), "optimal_openers"),
])
def test_forged_symmetry_claims_are_rejected(mastermind_proof, tmp_path, edit, message):
    from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate

    folder, game = mastermind_proof
    with pytest.raises(CertificateError, match=message):
        verify_certificate(edited(folder, tmp_path, edit), game)


def test_forged_position_swap_rejected_where_colours_move(tmp_path_factory, tmp_path, ray_session):
    """Wordle's answering function on all strings: the prover keeps only symbol swaps; a certificate that adds
    a position swap (so as to represent more openers) is rejected."""
    from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate

    folder, game = _prove(tmp_path_factory, "game.pegs=3", "game.colours=3", "game.answer=wordle")
    cert = json.loads((folder / "certificate.json").read_text())
    assert all(g["positions"] == [0, 1, 2] for g in cert["symmetry"]["generators"])
    result = verify_certificate(folder, game)
    assert result["complete"]
    assert result["game"] == "mastermind (3 pegs, 3 colours), answered as wordle (not as the shipped mastermind)"
    forged = edited(folder, tmp_path, lambda c: c["symmetry"]["generators"].append(
        {"symbols": [0, 1, 2], "positions": [1, 0, 2]}))
    with pytest.raises(CertificateError, match="not an automorphism: it changes the answer"):
        verify_certificate(forged, game)


@pytest.mark.slow
def test_class_solved_with_the_opener_stabiliser_matches_full_search():
    """The opener's stabiliser orbits (search/symmetry/stabiliser.py) against brute force, and a class's MinTotal
    searched one guess per orbit of the history's stabiliser equals the full search's."""
    from pipeline.search.exact.solver import ExactSolver
    from pipeline.search.exact.symmetric import SymmetricExact
    from pipeline.search.matrix import Matrix
    from pipeline.search.symmetry.stabiliser import HistoryStabiliser

    game = builtin_game("mastermind", pegs=3, colours=4)
    codes = game_matrix(game)
    words = game.encoded_guesses()
    group = HistoryStabiliser(words, 4, symmetry.find_generators(words, words, codes, 4))
    _, maps = brute_orbits(game)
    fixing = [m for m in maps if m["112"] == "112"]
    opener = game.guess_index["112"]
    roots = group.representatives([opener])
    assert {game.guesses[h] for h in roots} == {min(m[w] for m in fixing) for w in game.guesses}
    row = codes[opener]
    for code in np.unique(row):
        members = np.flatnonzero(row == code).astype(np.int32)
        full = ExactSolver(Matrix.of_game(codes, game)).min_total(members)[0]
        reduced = SymmetricExact(ExactSolver(Matrix.of_game(codes, game)), group).min_total(
            members, (opener,))[0]
        assert reduced == full

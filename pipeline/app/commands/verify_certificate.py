"""`python -m pipeline verify-certificate`: re-check a proof of optimality or a leaderboard (all of it).

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse
import os
from pathlib import Path

from pipeline import PipelineError, echo
from pipeline.app.commands.common import (ArgumentParser, capped_workers, load_game_from, one_path, path_parser,
                                          sample_size, say, worker_count)
from pipeline.processes import signals


NAME = 'verify-certificate'
USAGE = ('verify-certificate <dir|bundle> [--sample N]',  # the form and what it does, in `python -m pipeline --help`
         're-check a proof of optimality or a leaderboard (all of it)')
# a stopped check's line (pipeline.processes.signals); its journal keeps its work (proofs/certificates/journal.py)
CHECK_STOPPED = ("the check was stopped, nothing was verified (what it re-derived is kept: the same command "
                 "resumes it)")


def print_verdict(result: dict) -> None:
    """`ok: certificate verified` only when everything was re-derived; a sample says `partially checked`.  The game
    is named as the checker named it (pipeline/proofs/certificates/naming.py), never by what a file calls it."""
    mode = "hard" if result["hard_mode"] else "normal"
    limit = "no guess limit" if result["max_guesses"] is None else f"at most {result['max_guesses']} guesses"
    rules = f"{mode} mode, {limit}"
    verdict = 'ok: certificate verified' if result['complete'] else 'partially checked (sample only)'
    if result.get("kind") == "infeasible":  # pipeline/proofs/certificates/infeasible.py
        checked = (f"re-derived {'all ' if result['complete'] else ''}{result['openers_rederived']} of "
                   f"{result['openers']} witnesses ({result['by_counting']} by counting, {result['by_search']} by "
                   f"search), {result['represented']} more openers by symmetry (its generators checked)")
        say(f"{verdict} — no strategy finds every secret within {result['max_guesses']} guesses for "
              f"{result['game']} ({mode} mode); {checked}")
        return
    checked = (f"re-derived all {result['openers_rederived']} elimination bounds and all "
               f"{result['classes_rederived']} closure class bounds")
    if not result["complete"]:
        checked = (f"re-derived {result['openers_rederived']} of {result['openers_eliminated']} elimination bounds "
                   f"and {result['classes_rederived']} of {result['classes']} closure class bounds")
    if result.get("resumed_values"):
        checked += f" ({result['resumed_values']} of them read back from a stopped check's sealed journal)"
    if "leaders" in result:  # a leaderboard (pipeline/proofs/certificates/leaderboard.py)
        ties = f"; every opener tied at {result['threshold']} is listed" if result["ties"] else ""
        listed = ", ".join(f"{w} {v}" for w, v in result["leaders"])
        say(f"{verdict} — the {result['k']} best openers of {result['game']} ({rules}), exact: {listed}; every "
              f"other opener is worth more than {result['threshold']}{ties}; {checked}")
        return
    optimal = result["optimal_openers"]  # whole orbits in a game with symmetries (720 for Mastermind)
    named = ", ".join(optimal[:12]) + (f", … ({len(optimal)} in all)" if len(optimal) > 12 else "")
    say(f"{verdict} — MinTotal = {result['ub']} for {result['game']} ({rules}), optimal opener(s) {named}; "
          f"{checked}")


def shape_overrides(cert: dict) -> list[str]:
    """The size a peg game's certificate was proven for: game.pegs/colours (Mastermind), game.length (Bulls and Cows)."""
    if cert.get("answer") == "mastermind":
        return [f"game.pegs={cert['length']}", f"game.colours={cert['n_symbols']}"]
    if cert.get("answer") == "bulls_and_cows":
        return [f"game.length={cert['length']}"]
    return []


def run(ns: argparse.Namespace) -> int:
    """A proof folder is checked in place (and its check recorded beside it); a bundle archive is unpacked into a
    temporary folder (pipeline/proofs/files/archive.py: no traversal, no link, size limits) and checked there, its
    check recorded under the sha256 of the bytes unpacked (pipeline/proofs/certificates/record.py).  Ctrl-C,
    SIGTERM or SIGHUP unwind the check: its worker processes end and the temporary folder is removed before the
    one line (pipeline.processes.signals).  A worker process that dies (the out-of-memory killer) stops the check
    the same way, its line saying how the worker ended."""
    from pipeline.processes.pool import WorkerLost

    signals.on_stop(CHECK_STOPPED)
    with signals.unwinding():
        try:
            return verify_path(ns)
        except WorkerLost as lost:
            raise PipelineError(f"{lost}; {CHECK_STOPPED}") from None


def verify_path(ns: argparse.Namespace) -> int:
    """verify-certificate of the folder or archive `ns` names."""
    from pipeline.proofs.files.archive import unpacked_hashed

    path, overrides, legacy = one_path(ns, "prove artifact folder")
    workers = capped_workers(ns.workers)
    if set(legacy) - {"sample"}:
        raise PipelineError(f"verify-certificate has no option {sorted(set(legacy) - {'sample'})[0]}=")
    sample = ns.sample
    if "sample" in legacy:
        try:
            sample = sample_size(legacy["sample"])
        except argparse.ArgumentTypeError as err:
            raise PipelineError(str(err).replace("--sample", "sample")) from None
    if path.is_dir():
        return verify_folder(path, overrides, sample, workers)
    if not path.exists():
        raise PipelineError(f"{path} is not a folder, nor an archive: nothing is there (give a prove artifact "
                            "folder, outputs/prove/<key>, or an archive `python -m pipeline bundle` wrote)")
    with unpacked_hashed(path) as found:
        return verify_folder(found.top, overrides, sample, workers, archive=path, archive_sha256=found.sha256)


LIST_SETTINGS = ("secrets", "guesses", "exclude", "source", "length", "alphabet", "keep_matching_only",
                 "secrets_are_guesses", "pegs", "colours")  # game settings that change a game's lists


def certificate_game(cert: dict, stored, overrides: list[str], where: str):
    """The game a certificate is checked against: the one its folder stores (game.json.gz, every list checked by
    the checker's own reader), which overrides may restate but not change; a folder without one (made before
    folders stored their game): the game the overrides compose on the certificate's game and rules."""
    from pipeline.config.compose import compose_config
    from pipeline.proofs.game.stored_game import GAME_FILE, disagreements

    if stored is not None and not overrides:
        return stored
    rules = [f"game.max_guesses={'null' if cert['max_guesses'] is None else cert['max_guesses']}"] \
        if "max_guesses" in cert else []
    rules += shape_overrides(cert)
    hard_mode = "true" if cert["hard_mode"] else "false"
    chosen = [f"game={cert['game']}", f"game.hard_mode={hard_mode}", *rules, *overrides]
    if stored is None:
        return load_game_from(chosen)
    if any(changes_lists(o) for o in overrides):
        differ = disagreements(stored, load_game_from(chosen))
    else:  # the rules only: the lists need not be where the game's config says (they are in the folder)
        cfg = compose_config(chosen).game
        differ = [name for name, a, b in (("hard_mode", stored.hard_mode, cfg.hard_mode),
                                          ("max_guesses", stored.max_guesses, cfg.max_guesses),
                                          ("answer", stored.answer, cfg.answer)) if a != b]
    if differ:
        raise PipelineError(f"the game overrides {echo(' '.join(overrides))} disagree with the game {where} stores in "
                            f"{GAME_FILE} ({', '.join(differ)} differ); give no game overrides: the folder holds "
                            "its game")
    return stored


def changes_lists(override: str) -> bool:
    """Whether an override (game=<name>, game.<key>=..., paths.<key>=...) can change the game's lists."""
    key = override.lstrip("+~").split("=", 1)[0].split(".")
    return key[0] == "paths" or len(key) == 1 or key[1] in LIST_SETTINGS


def lists_line(game, stored, where: str) -> str:
    """Which lists the check used: those the folder stores (no list file read), or the game's config."""
    counts = (f"{len(game.secrets)} secrets (sorted-sha256 {game.secrets_digest[:12]}…), {len(game.guesses)} "
              f"guesses (sorted-sha256 {game.guesses_digest[:12]}…)")
    if stored is None:
        return f"lists: {counts}, from the game's config ({where} stores none: made before proofs stored their lists)"
    return f"lists: {counts}, {len(stored.excluded)} excluded, stored in {where} (no list file read)"


def verify_folder(folder: Path, overrides: list[str], sample, workers: int, archive: Path | None = None,
                  archive_sha256: str | None = None) -> int:
    from pipeline.proofs.certificates.optimal import load_certificate, stderr_say
    from pipeline.proofs.certificates.record import verify_and_record
    from pipeline.proofs.game.stored_game import folder_game

    where = str(archive or folder)
    if not (folder / "certificate.json").exists() and (folder / "solution.json").exists():
        raise PipelineError(f"{where} holds a blindfold solution, not a certificate: verify-certificate checks prove "
                            "and leaderboard certificates (a blindfold set is checked by stage=blindfold "
                            "stage.check=[<guesses>]; it has no independent checker yet)")
    cert = load_certificate(folder)  # strict schema and size limit, before any game is built
    stored = folder_game(folder)  # its lists checked word by word against their digests
    game = certificate_game(cert, stored, overrides, where)
    result, record = verify_and_record(folder, game, sample, say=stderr_say, workers=workers, archive=archive,
                                       archive_sha256=archive_sha256)
    signals.on_stop(None)  # the check has ended: a stop from here on claims nothing about it
    print_verdict(result)
    say(lists_line(game, stored, where))
    if archive is not None:
        say(f"checked from the archive {archive} (sha256 {archive_sha256}), unpacked into a temporary folder now "
            "removed")
    say(f"recorded: {record} ({'a complete check' if result['complete'] else 'a sample: not a verification'})")
    return 0


def parser() -> ArgumentParser:
    parser = path_parser("verify-certificate", "prove_dir", "Re-check a prove artifact with the independent checker "
                         "(pipeline/proofs): the UB tree, every sum, every elimination bound and every closure "
                         "class, from the word lists the folder stores (game.json.gz; game settings, when "
                         "given, must agree with it; a folder without one: the certificate's game).",
                         "the prove or leaderboard artifact folder, or a bundle archive")
    parser.add_argument("--sample", type=sample_size, default=None,
                        help="quick mode: re-derive only N elimination bounds and N closure classes at random "
                             "(reported as partially checked); default: everything (sample=N also accepted)")
    parser.add_argument("--workers", type=worker_count, default=os.cpu_count() or 1,
                        help="processes re-deriving the deep elimination bounds or the infeasibility witnesses "
                             "(default: one per core)")
    return parser

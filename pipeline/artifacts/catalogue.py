"""The catalogue of a store: every certificate under the outputs, one row per game, mode and guess limit.

Pure gathering: each finished artifact holding a certificate.json (a proof of stage=prove, an infeasible guess limit, or a leaderboard) is
read with its tree file, its manifest and its verification record (pipeline/proofs/certificates/record.py); nothing is proven
or checked again.  A certificate is called verified only when `record.status` finds a complete record sealed by
this machine's checker key, of this checker's version and code, over the files as they are now; a missing
record, a record without this machine's seal (hand-written, edited, copied from elsewhere), a sample check, a
record of other checker code or files changed since are "not verified here", whatever the certificate claims.  Of the certificates of
one row the newest verified one is shown (by its manifest's `written_at`; with none verified, the newest), the
others are listed after it.  A certificate that cannot be read (not JSON, fields missing, its tree file
unreadable) is listed under `unreadable` with its problem, and the others are catalogued as usual.  No symbolic
link is followed: a linked stage folder, artifact folder or bundle, or a link among a certificate's files, is
listed under `unreadable` too, with where it points (a link may lead out of the outputs folder).

A row's shown certificate with a tree (a proven optimum's, a leaderboard's best leader's) names the page that explores
it (`explorer_path`, written by the stage: pipeline/artifacts/tree_explorer.py); every entry records its tree file,
that file's sha256 and how its responses are drawn (from the folder's game.json.gz).

Folders and links are relative: `folder` to the outputs folder (e.g. prove/<key>), the links to a catalogue
folder two levels below it (../../prove/<key>/tree.svg), so the page works wherever the outputs are copied.
"""

import hashlib
import os
import posixpath
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from pipeline import PipelineError
from pipeline.artifacts.outputs import CERTIFICATE, STORED_GAME, TREE, TREE_PICTURE
from pipeline.artifacts.tree_explorer import drawing_style
from pipeline.proofs.certificates import record
from pipeline.runtime.files import MAX_JSON_BYTES, MissingFile, UnreadableFile, parse_json, read_bytes
from pipeline.runtime.store import MANIFEST, Artifact, ArtifactStore, DamagedArtifactError, is_link, read_json_file
from pipeline.search.tree import from_json

OWN_STAGE = "catalogue"  # its own folder holds no certificate, and is never searched
UP_TO_OUTPUTS = ("..", "..")  # from outputs/catalogue/<key>/ back to outputs/
BUNDLE_SUFFIX = ".tar.gz"  # `python -m pipeline bundle <folder>` writes <folder>.tar.gz beside the folder
GAME_FIELDS = {"game": str, "hard_mode": bool, "guesses_sha256": str, "secrets_sha256": str, "n_guesses": int,
               "n_secrets": int}
KIND_NAMES = {int: "a whole number", bool: "true or false", str: "a string", list: "a list", type(None): "null"}
EXPLORER_NAME_CHARS = 40  # of the game's name in an explorer page's file name (the rest of the name is short)


class Unreadable(Exception):
    """A certificate folder whose files cannot be catalogued; the message says why."""


def stage_folders(store: ArtifactStore) -> list[Path]:
    """The stage folders under the store (symbolic links among them too), not hidden, not the catalogue's own."""
    if not store.root.is_dir():
        return []
    return sorted(p for p in store.root.iterdir()
                  if not p.name.startswith(".") and p.name != OWN_STAGE and (is_link(p) or p.is_dir()))


def certificate_artifacts(store: ArtifactStore) -> list[Artifact]:
    """Every finished artifact under the store holding a certificate.json and no symbolic link, oldest first (by
    its manifest's time of writing, as the store orders a stage's artifacts), whatever its stage.  The store
    follows no linked stage or artifact folder (ArtifactStore.finished); `links_not_followed` names them all."""
    found = [a for folder in stage_folders(store) for a in store.finished(folder.name)
             if os.path.lexists(a.file(CERTIFICATE.name)) and not links_in(a.path)]
    return sorted(found, key=lambda a: (a.file(MANIFEST).lstat().st_mtime_ns, str(a.path)))


def links_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if is_link(p))


def links_not_followed(store: ArtifactStore) -> list[Path]:
    """Every symbolic link where certificates are looked for: a stage folder, an entry of one (an artifact folder,
    a bundle), a file in a certificate's folder.  None is followed: a link may lead out of the outputs folder."""
    found = []
    for folder in stage_folders(store):
        if is_link(folder):
            found.append(folder)
            continue
        for entry in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
            if is_link(entry):
                found.append(entry)
            elif entry.is_dir() and os.path.lexists(entry / CERTIFICATE.name):
                found += links_in(entry)
    return found


def link_problem(store: ArtifactStore, path: Path) -> str:
    """What a link not followed is, in words: where it points, and whether that is outside the outputs folder."""
    target = os.readlink(path)
    inside = Path(os.path.realpath(path)).is_relative_to(store.root)
    return (f"a symbolic link to {target} ({'inside' if inside else 'outside'} the outputs folder): not followed "
            "(the catalogue reads no certificate through a link)")


def gather(store: ArtifactStore) -> dict:
    """The catalogue: counts, rows (one per game, mode and guess limit) and the unreadable certificates (a
    symbolic link where certificates are looked for among them, not followed)."""
    entries = []
    unreadable = [{"folder": relative(store, path), "problem": link_problem(store, path)}
                  for path in links_not_followed(store)]
    for age, artifact in enumerate(certificate_artifacts(store)):
        try:
            entries.append((certificate_entry(store, artifact), age))
        except Unreadable as err:
            unreadable.append({"folder": relative(store, artifact.path), "problem": str(err)})
    rows = grouped(entries)
    counts = {"results": len(rows), "verified": sum(r["shown"]["verified"] for r in rows),
              "certificates": len(entries), "unreadable": len(unreadable)}
    return {"counts": counts, "checker_version": record.CHECKER_VERSION, "rows": rows, "unreadable": unreadable}


# ---- one certificate -------------------------------------------------------------------------------------------


def certificate_entry(store: ArtifactStore, artifact: Artifact) -> dict:
    """What the catalogue says of one certificate folder (Unreadable when its files do not allow it)."""
    cert = json_object(artifact, CERTIFICATE.name)
    manifest = json_object(artifact, MANIFEST)
    game = {name: typed(cert, name, kind) for name, kind in GAME_FIELDS.items()}
    game["max_guesses"] = typed(cert, "max_guesses", (int, type(None)))
    if cert.get("kind") == "leaderboard":
        result = leaderboard_result(artifact, cert)
    elif cert.get("kind") == "infeasible":
        result = infeasible_result(cert)
    else:
        result = proof_result(artifact, cert, manifest)
    check, svg = verification(artifact), result.pop("svg")
    tree = result.pop("tree")
    return {"stage": artifact.stage, "folder": relative(store, artifact.path),
            "written_at": text_or_none(manifest.get("written_at")), "game": game, **result,
            "certificate_sha256": record.sha256_of(artifact.file(CERTIFICATE.name)),
            "verified": check["state"] == record.VERIFIED, "verification": check,
            "certificate_path": link(store, artifact.file(CERTIFICATE.name)),
            "tree_svg_path": existing_link(store, artifact.file(svg)),
            "bundle_path": existing_link(store, artifact.path.with_name(artifact.path.name + BUNDLE_SUFFIX)),
            **tree_fields(artifact, tree), "explorer_path": None}


def proof_result(artifact: Artifact, cert: dict, manifest: dict) -> dict:
    """A proof's claim: the optimum (MinTotal) and its openers when proven, else only the upper bound."""
    ub, proven = typed(cert, "ub", int), typed(cert, "proven", bool)
    openers = typed(cert, "optimal_openers", list)
    summary = manifest.get("summary") if isinstance(manifest.get("summary"), dict) else {}
    funnel = summary.get("funnel", [])
    stats = tree_statistics(artifact, TREE.name) if proven else {}
    return {"kind": "proof", "proven": proven, "upper_bound": ub, "optimum": ub if proven else None,
            "optimal_openers": [str(o) for o in openers],
            "funnel": funnel if isinstance(funnel, list) and all(type(n) is int for n in funnel) else [],
            **measures(ub if proven else None, cert["n_secrets"], stats), "svg": TREE_PICTURE.name,
            "tree": stats.get("body")}


def infeasible_result(cert: dict) -> dict:
    """An infeasible guess limit's claim: no strategy finds every secret within it, so no optimum and no tree."""
    return {"kind": "infeasible", "proven": typed(cert, "proven", bool), "upper_bound": None, "optimum": None,
            "optimal_openers": [], "funnel": [], **measures(None, cert["n_secrets"], {}), "svg": TREE_PICTURE.name,
            "tree": None}


def leaderboard_result(artifact: Artifact, cert: dict) -> dict:
    """A leaderboard's claim: the k best openers' exact values, so the best value is the optimum."""
    leaders = typed(cert, "leaders", list)
    if not leaders or not all(isinstance(e, dict) and isinstance(e.get("opener"), str) and type(e.get("value")) is int
                              and isinstance(e.get("tree"), str) for e in leaders):
        raise Unreadable(f"{CERTIFICATE.name}: leaders is not a list of openers with a value and a tree")
    best = min(e["value"] for e in leaders)
    first = next(e for e in leaders if e["value"] == best)
    funnel = [cert["n_guesses"], cert["n_guesses"] - len(typed(cert, "eliminated", list)), len(leaders)]
    stats = tree_statistics(artifact, first["tree"])
    return {"kind": "leaderboard", "proven": True, "upper_bound": best, "optimum": best,
            "optimal_openers": sorted(e["opener"] for e in leaders if e["value"] == best), "funnel": funnel,
            "leaders": [{"opener": e["opener"], "value": e["value"]} for e in leaders],
            **measures(best, cert["n_secrets"], stats), "svg": posixpath.splitext(first["tree"])[0] + ".svg",
            "tree": stats["body"]}


def measures(optimum: int | None, secrets: int, stats: dict) -> dict:
    """Average guesses per secret (the optimum over |S|, exact as that fraction) and the certified tree's worst
    case and distribution (none without a proven optimum)."""
    if optimum is None:
        return {"average": None, "worst_case": None, "distribution": None}
    return {"average": optimum / secrets if secrets else None, "worst_case": stats["worst_case"],
            "distribution": stats["distribution"]}


def tree_statistics(artifact: Artifact, name: str) -> dict:
    """The worst case and the distribution (guesses -> secrets) that tree file records (the checker replays
    both when it verifies the certificate that pins the file), and the file's name and body (holding a tree)."""
    if posixpath.basename(name) != name:
        raise Unreadable(f"{CERTIFICATE.name} names a tree file outside its folder: {name!r}")
    body = json_object(artifact, name)
    distribution = body.get("distribution")
    if not isinstance(distribution, dict) or not distribution or not all(
            k.isdigit() and type(v) is int for k, v in distribution.items()):
        raise Unreadable(f"{name} records no distribution of guesses")
    try:
        from_json(body["tree"])
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
        raise Unreadable(f"{name} holds no strategy tree ({type(err).__name__}: {err})") from None
    counts = {int(k): v for k, v in distribution.items()}
    return {"worst_case": max(counts), "distribution": {str(k): counts[k] for k in sorted(counts)},
            "body": {"name": name, "answer": body.get("answer", "wordle")}}


def tree_fields(artifact: Artifact, tree: dict | None) -> dict:
    """The certified tree's file (None without one), its sha256 and how its responses are drawn (STYLES of
    pipeline/artifacts/tree_explorer.py: by the stored game's answering function and source)."""
    if tree is None:
        return {"tree_file": None, "tree_sha256": None, "drawn_as": None}
    answer, source = stored_rules(artifact, tree["answer"])
    return {"tree_file": tree["name"], "tree_sha256": record.sha256_of(artifact.file(tree["name"])),
            "drawn_as": drawing_style(answer, source)}


def stored_rules(artifact: Artifact, answer: str) -> tuple[str, str]:
    """(answering function, source) of the game the folder stores (game.json.gz: pipeline/artifacts/
    stored_game.py); a folder made before proofs stored their game: the tree file's answer, source unknown."""
    path = artifact.file(STORED_GAME.name)
    try:
        inflate = zlib.decompressobj(wbits=31)  # gzip
        text = inflate.decompress(read_bytes(path, MAX_JSON_BYTES), MAX_JSON_BYTES)
        if inflate.unconsumed_tail:
            raise ValueError(f"its JSON is over {MAX_JSON_BYTES} bytes")
        stored = parse_json(text.decode("utf-8"), path)
        answer, source = stored["game"]["answer"], stored.get("source", "lists")
        if not isinstance(answer, str) or not isinstance(source, str):
            raise ValueError("its answer or source is not a string")
        return answer, source
    except MissingFile:
        return str(answer), "lists"
    except UnreadableFile as err:
        raise Unreadable(f"{STORED_GAME.name} is {err.problem}") from None
    except (zlib.error, ValueError, KeyError, TypeError, AttributeError) as err:  # UnicodeDecodeError: a ValueError
        raise Unreadable(f"{STORED_GAME.name} is damaged ({err})") from None


def verification(artifact: Artifact) -> dict:
    """The certificate's verification state; for a verified (or sampled) one, which checker, when, and the game as
    the checker named it; else why it is not verified here (pipeline/proofs/certificates/record.py)."""
    check = record.status(artifact.path)
    if check.state == record.UNVERIFIED:
        return {"state": check.state, "why": check.why}
    return {"state": check.state, "checker_version": record.CHECKER_VERSION, "checker_code": record.checker_code(),
            "checked_at": check.checked_at, "checked_as": check.named}


def text_or_none(value) -> str | None:
    return value if isinstance(value, str) else None


def json_object(artifact: Artifact, name: str) -> dict:
    try:
        return read_json_file(artifact.stage, artifact.file(name), dict)
    except DamagedArtifactError as err:
        raise Unreadable(f"{name} is {err.problem}") from None


def typed(body: dict, name: str, kind):
    """body[name] if it is of `kind` (a bool is no int); else Unreadable naming the field."""
    value = body.get(name)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise Unreadable(f"{CERTIFICATE.name}: {name} is missing or not {' or '.join(KIND_NAMES[k] for k in kinds)}")
    return value


def relative(store: ArtifactStore, path) -> str:
    return path.relative_to(store.root).as_posix()


def link(store: ArtifactStore, path) -> str:
    """`path` as a link from a catalogue folder (outputs/catalogue/<key>/)."""
    return posixpath.join(*UP_TO_OUTPUTS, relative(store, path))


def existing_link(store: ArtifactStore, path) -> str | None:
    """A link to `path` when it is a regular file (a symbolic link there is not linked to)."""
    return link(store, path) if path.is_file() and not is_link(path) else None


def shown_tree(store: ArtifactStore, entry: dict):
    """The tree of a catalogued entry with a tree file, as the catalogue read it (the same sha256: PipelineError
    when the file changed since), for its explorer page."""
    path = store.root / entry["folder"] / entry["tree_file"]
    data = read_bytes(path, MAX_JSON_BYTES)
    if hashlib.sha256(data).hexdigest() != entry["tree_sha256"]:
        raise PipelineError(f"{path} changed while the catalogue was written: run stage=catalogue again")
    return from_json(parse_json(data.decode("utf-8"), path)["tree"])


# ---- rows ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class RowKey:
    """What makes two certificates results of the same row: the game (name and lists), its mode and guess limit."""

    name: str
    hard_mode: bool
    no_limit: bool
    limit: int
    lists: tuple[str, str]

    @classmethod
    def of(cls, game: dict) -> "RowKey":
        limit = game["max_guesses"]
        return cls(game["game"], game["hard_mode"], limit is None, limit or 0,
                   (game["guesses_sha256"], game["secrets_sha256"]))


def explorer_name(key: RowKey, entry: dict) -> str:
    """The file name of the page exploring a row's tree, in the catalogue's folder: the game (its name cut and
    percent-encoded into one plain file name), mode and guess limit, then the certificate's sha256 (so two rows
    of one name, on other lists, never share a page)."""
    limit = "unlimited" if key.no_limit else f"g{key.limit}"
    name = quote(key.name[:EXPLORER_NAME_CHARS], safe="")
    return f"explore-{name}-{'hard' if key.hard_mode else 'normal'}-{limit}-{entry['certificate_sha256'][:12]}.html"


def preference(found: tuple[dict, int]) -> tuple:
    """Verified first, then a proven claim, then the newest: by the manifest's written_at (kept by a copy of the
    outputs), then by the order the store wrote them in (`age`, from certificate_artifacts)."""
    entry, age = found
    return entry["verified"], entry["proven"], entry["written_at"] or "", age


def grouped(entries: list[tuple[dict, int]]) -> list[dict]:
    """One row per RowKey, in its order: the preferred certificate shown, the others after it."""
    groups: dict[RowKey, list[tuple[dict, int]]] = {}
    for found in entries:
        groups.setdefault(RowKey.of(found[0]["game"]), []).append(found)
    return [row(key, [entry for entry, _ in sorted(found, key=preference, reverse=True)])
            for key, found in sorted(groups.items())]


def row(key: RowKey, ranked: list[dict]) -> dict:
    shown, game = ranked[0], ranked[0]["game"]
    if shown["tree_file"] is not None:
        shown = {**shown, "explorer_path": explorer_name(key, shown)}
    if len(ranked) == 1:
        why = "the only certificate"
    elif shown["verified"]:
        why = f"the newest verified of {len(ranked)} certificates"
    else:
        why = f"the newest of {len(ranked)} certificates, none verified"
    return {"game": key.name, "mode": "hard" if key.hard_mode else "normal", "guess_limit": game["max_guesses"],
            "secrets": game["n_secrets"], "guesses": game["n_guesses"], "guesses_sha256": key.lists[0],
            "secrets_sha256": key.lists[1], "shown_as": why, "shown": shown, "others": ranked[1:]}

"""The catalogue of a store: every certificate under the outputs and in the committed archives, one row per game,
mode and guess limit.

Pure gathering: each finished artifact holding a certificate.json (a proof of stage=prove, an infeasible guess
limit, or a leaderboard) is read with its tree file, its manifest and its verification record
(pipeline/proofs/certificates/record.py); nothing is proven or checked again.  A certificate is called verified
only when `record.status` finds a complete record sealed by this machine's checker key, of this checker's
version and code, over the files as they are now; a missing record, a record without this machine's seal
(hand-written, edited, copied from elsewhere), a sample check, a record of other checker code or files changed
since are "not verified here", whatever the certificate claims.  Of the certificates of one row the newest
verified one is shown (by its manifest's `written_at`; with none verified, the newest), the others are listed
after it.  A certificate that cannot be read (not JSON, fields missing, its tree file unreadable) is listed
under `unreadable` with its problem, and the others are catalogued as usual.  No symbolic link is followed: a
linked stage folder, artifact folder or bundle, or a link among a certificate's files, is listed under
`unreadable` too, with where it points (a link may lead out of the outputs folder).

So is each committed archive (the checkout's catalogue/*.tar.gz: `committed_bundles`), unpacked by the checker's
own reader (pipeline/proofs/files/archive.py: no traversal, no link, size limits, members as its INDEX.json
lists them) into a hidden temporary folder inside the outputs, removed afterwards; an archive refused is listed
under `unreadable` with the reason.  An archive's certificate is verified only by this machine's sealed record
of a check of those very bytes (record.archive_status; `verify-certificate <archive>` writes it under the
archive's sha256); its entry names the command that checks it.

A row's shown certificate with a tree (a proven optimum's, a leaderboard's best leader's) names the page that explores
it (`explorer_path`, written by the stage: pipeline/artifacts/tree_explorer.py); every entry records its tree file,
that file's sha256 and how its responses are drawn (from the folder's game.json.gz).

Each entry says where it comes from (`source`: "outputs" or "committed"), and each row whether it holds
certificates of both and, then, whether their proven claims agree (`agree`).

Folders and links are relative: `folder` to the outputs folder (e.g. prove/<key>), the links to a catalogue
folder two levels below it (../../prove/<key>/tree.svg), so the page works wherever the outputs are copied.  A
committed archive's `folder` is its path as the stage names it (catalogue/<name>.tar.gz); it has no links (its
files are inside the archive, outside the outputs) but its row's explorer page.
"""

import contextlib
import hashlib
import os
import posixpath
import shlex
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from pipeline import PipelineError
from pipeline.artifacts.outputs import CERTIFICATE, STORED_GAME, TREE, TREE_PICTURE
from pipeline.artifacts.tree_explorer import drawing_style
from pipeline.proofs.certificates import record
from pipeline.proofs.files.archive import ArchiveRefused, Unpacked, unpack_hashed
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
OUTPUTS, COMMITTED = "outputs", "committed"  # where an entry comes from: the outputs folder, a committed archive


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


def gather(store: ArtifactStore, bundles: dict[str, "Bundle"] | None = None) -> dict:
    """The catalogue: counts, rows (one per game, mode and guess limit) and the unreadable certificates (a
    symbolic link where certificates are looked for among them, not followed), of the outputs and of the
    committed archives `bundles` (committed_bundles)."""
    entries = []
    unreadable = [{"source": OUTPUTS, "folder": relative(store, path), "problem": link_problem(store, path)}
                  for path in links_not_followed(store)]
    for age, artifact in enumerate(certificate_artifacts(store)):
        try:
            entries.append((certificate_entry(store, artifact), age))
        except Unreadable as err:
            unreadable.append({"source": OUTPUTS, "folder": relative(store, artifact.path), "problem": str(err)})
    bundles = bundles or {}
    for age, bundle in enumerate(bundles.values(), start=-len(bundles)):  # older than the outputs' on a tie
        try:
            entries.append((committed_entry(bundle), age))
        except Unreadable as err:
            unreadable.append({"source": COMMITTED, "folder": bundle.shown, "problem": str(err),
                               "archive_sha256": bundle.sha256})
    rows = grouped(entries)
    counts = {"results": len(rows), "verified": sum(r["shown"]["verified"] for r in rows),
              "certificates": len(entries), "committed": sum(e["source"] == COMMITTED for e, _ in entries),
              "unreadable": len(unreadable)}
    return {"counts": counts, "checker_version": record.CHECKER_VERSION, "rows": rows, "unreadable": unreadable}


# ---- the committed archives ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bundle:
    """A committed archive as the catalogue read it: where it is, how the page names it (`shown`, e.g.
    catalogue/<name>.tar.gz), the sha256 of its bytes (None when they cannot be read), and either its folder
    unpacked or why it cannot be read."""

    path: Path
    shown: str
    sha256: str | None
    unpacked: Unpacked | None = None
    problem: str | None = None


def committed_archives(folder: Path | None) -> list[Path]:
    """The archives <folder>/*.tar.gz by name (a link among them too: read_bundle follows none); none when no
    folder is given or it is not there (an installed copy has no catalogue/)."""
    if folder is None or not Path(folder).is_dir():
        return []
    return sorted(p for p in Path(folder).iterdir() if p.name.endswith(BUNDLE_SUFFIX) and not p.name.startswith("."))


@contextlib.contextmanager
def committed_bundles(store: ArtifactStore, folder: Path | None, shown_folder: str):
    """Each archive of `folder` (named `shown_folder`/<name> on the page) unpacked by the checker's reader into
    one hidden temporary folder inside the outputs (`.catalogue-bundles-*`, which no reader of the store
    searches), removed afterwards: archive name -> Bundle."""
    archives = committed_archives(folder)
    if not archives:
        yield {}
        return
    store.root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".catalogue-bundles-", dir=store.root) as scratch:
        yield {path.name: read_bundle(path, posixpath.join(shown_folder, path.name), Path(scratch) / str(n))
               for n, path in enumerate(archives)}


def committed_digests(folder: Path | None, shown_folder: str) -> list[dict]:
    """What the catalogue's key holds of each archive of `folder`, read without unpacking it: how the page names
    it, the sha256 of its bytes (None when they cannot be read) and its verification state, or where it links to
    (not followed).  What the catalogue says of an archive follows from these (its claims from its bytes)."""
    digests = []
    for path in committed_archives(folder):
        shown = posixpath.join(shown_folder, path.name)
        if is_link(path):
            digests.append({"archive": shown, "link": os.readlink(path)})
            continue
        sha256 = file_sha256(path)
        check = verification(record.archive_status(path, sha256)) if sha256 else None
        digests.append({"archive": shown, "sha256": sha256, "verification": check})
    return digests


def read_bundle(path: Path, shown: str, into: Path) -> Bundle:
    """One archive unpacked into the new folder `into`, or the reason it is refused (a link is not followed)."""
    if is_link(path):
        return Bundle(path, shown, None, problem=f"a symbolic link to {os.readlink(path)}: not followed")
    into.mkdir()
    try:
        found = unpack_hashed(path, into)
    except ArchiveRefused as err:
        return Bundle(path, shown, file_sha256(path), problem=f"the archive cannot be read: {err.why}")
    return Bundle(path, shown, found.sha256, unpacked=found)


def file_sha256(path: Path) -> str | None:
    """The sha256 of a file's bytes, None when they cannot be read (an archive's key material, even refused)."""
    try:
        return record.sha256_of(path)
    except PipelineError:
        return None


def committed_entry(bundle: Bundle) -> dict:
    """What the catalogue says of a committed archive's certificate (Unreadable when the archive or its files do
    not allow it): verified only by this machine's sealed record of a check of those very bytes."""
    if bundle.unpacked is None:
        raise Unreadable(bundle.problem)
    top = bundle.unpacked.top
    stage, _, key = top.name.partition("-")
    artifact = Artifact(stage, key, top)
    if not os.path.lexists(artifact.file(CERTIFICATE.name)):
        raise Unreadable(f"the archive holds no {CERTIFICATE.name} (its folder is {top.name})")
    claim, _ = certificate_claim(artifact)
    check = verification(record.archive_status(bundle.path, bundle.unpacked.sha256))
    return {"source": COMMITTED, "stage": stage, "folder": bundle.shown, **claim,
            "verified": check["state"] == record.VERIFIED, "verification": check,
            "check_command": f"python -m pipeline verify-certificate {shlex.quote(bundle.shown)}",
            "archive": bundle.path.name, "archive_sha256": bundle.unpacked.sha256, "certificate_path": None,
            "tree_svg_path": None, "bundle_path": None, "explorer_path": None}


# ---- one certificate -------------------------------------------------------------------------------------------


def certificate_entry(store: ArtifactStore, artifact: Artifact) -> dict:
    """What the catalogue says of one certificate folder under the outputs (Unreadable when its files do not
    allow it)."""
    claim, svg = certificate_claim(artifact)
    check = verification(record.status(artifact.path))
    return {"source": OUTPUTS, "stage": artifact.stage, "folder": relative(store, artifact.path), **claim,
            "verified": check["state"] == record.VERIFIED, "verification": check, "check_command": None,
            "archive": None, "archive_sha256": None,
            "certificate_path": link(store, artifact.file(CERTIFICATE.name)),
            "tree_svg_path": existing_link(store, artifact.file(svg)),
            "bundle_path": existing_link(store, artifact.path.with_name(artifact.path.name + BUNDLE_SUFFIX)),
            "explorer_path": None}


def certificate_claim(artifact: Artifact) -> tuple[dict, str]:
    """What a certificate folder claims (its game, result, certificate and tree digests; Unreadable when its files
    do not allow it), and the name of its tree picture."""
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
    svg, tree = result.pop("svg"), result.pop("tree")
    return {"written_at": text_or_none(manifest.get("written_at")), "game": game, **result,
            "certificate_sha256": record.sha256_of(artifact.file(CERTIFICATE.name)),
            **tree_fields(artifact, tree)}, svg


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


def verification(check: record.Status) -> dict:
    """A certificate's verification state; for a verified (or sampled) one, which checker, when, and the game as
    the checker named it; else why it is not verified here (pipeline/proofs/certificates/record.py)."""
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


def shown_tree(store: ArtifactStore, entry: dict, bundles: dict[str, Bundle] | None = None):
    """The tree of a catalogued entry with a tree file (a committed archive's: in its folder unpacked, `bundles`),
    as the catalogue read it (the same sha256: PipelineError when the file changed since), for its explorer page."""
    folder = bundles[entry["archive"]].unpacked.top if entry["source"] == COMMITTED else store.root / entry["folder"]
    path = folder / entry["tree_file"]
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
            "secrets_sha256": key.lists[1], **sources(ranked), "shown_as": why, "shown": shown, "others": ranked[1:]}


def claimed(entry: dict) -> str | None:
    """What a certificate proves of its row, as text: its optimum, or that no strategy fits the limit; None for
    an unproven upper bound (it proves no optimum)."""
    if entry["optimum"] is not None:
        return str(entry["optimum"])
    return "none within the limit" if entry["kind"] == "infeasible" and entry["proven"] else None


def sources(ranked: list[dict]) -> dict:
    """Where a row's certificates come from (`source`: outputs, committed or both) and, with both, whether their
    proven claims agree (`agree`: one claim for all; None when one side proves nothing), with each side's
    claims (`claims`: source -> the distinct claims, sorted)."""
    claims = {source: sorted({claimed(e) for e in ranked if e["source"] == source} - {None})
              for source in (COMMITTED, OUTPUTS) if any(e["source"] == source for e in ranked)}
    if len(claims) == 1:
        return {"source": next(iter(claims)), "agree": None, "claims": claims}
    agree = None if not all(claims.values()) else claims[COMMITTED] == claims[OUTPUTS] and len(claims[OUTPUTS]) == 1
    return {"source": "both", "agree": agree, "claims": claims}

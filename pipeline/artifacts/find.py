"""Finding the artifacts of a game in the store, by one rule for "fits this game".

An artifact fits a game when it records the game's lists (both digests) and every other part of the game's
identity that the artifact's stage depends on (alphabet, hard mode, guess limit: pipeline/artifacts/identity.py,
which the stages' `game_identity` hooks follow; the feedback matrix depends on the lists only) is the game's.
Every reader of the store (the simulate stage's tree, the report, the assistant) finds artifacts through here."""

from dataclasses import dataclass
from pathlib import Path

from pipeline.artifacts.identity import stage_identity
from pipeline.artifacts.outputs import TREE
from pipeline.games.game import Game
from pipeline.runtime.store import MANIFEST, Artifact, ArtifactStore, DamagedArtifactError, read_json_file

LISTS = ("guesses_sha256", "secrets_sha256")


def fits(recorded: dict, identity: dict) -> bool:
    """Whether a recorded game description is for the game of `identity`: it names the game's lists, and
    every other part of the identity it records is the game's."""
    if any(recorded.get(key) != identity.get(key) for key in LISTS):
        return False
    return all(recorded[key] == value for key, value in identity.items() if key in recorded)


def artifacts_for(store: ArtifactStore, stage: str, game: Game, skip_damaged: bool = False) \
        -> list[tuple[Artifact, dict]]:
    """(artifact, manifest) of every finished artifact of `stage` that fits `game`, oldest first (see
    artifacts_fitting for `skip_damaged`)."""
    return artifacts_fitting(store, stage, stage_identity(stage, game), skip_damaged=skip_damaged)


def artifacts_fitting(store: ArtifactStore, stage: str, identity: dict, skip_damaged: bool = False) \
        -> list[tuple[Artifact, dict]]:
    """(artifact, manifest) of every finished artifact of `stage` whose recorded game fits `identity` (a game's
    identity, e.g. one stage=reproduce recorded), oldest first.

    A manifest that is not a JSON object with a game is a DamagedArtifactError naming it, or, with
    `skip_damaged` (a reader that merely looks for values, such as the assistant), left out."""
    found = []
    for artifact in store.finished(stage):
        try:
            manifest = read_json_file(stage, artifact.file(MANIFEST), dict)
            recorded = manifest.get("game", {})
            if not isinstance(recorded, dict):
                raise artifact.damaged(MANIFEST, "its game is not a JSON object")
        except DamagedArtifactError:
            if skip_damaged:
                continue
            raise
        if fits(recorded, identity):
            found.append((artifact, manifest))
    return found


@dataclass(frozen=True)
class StoredTree:
    """An upper_bound tree in the store: its recorded total (the UB; None if the manifest has no summary),
    artifact key and tree file."""

    total: int | None
    key: str
    path: Path

    @property
    def label(self) -> str:
        return f"upper_bound/{self.key}"


def recorded_total(manifest: dict) -> int | None:
    """The UB a manifest's summary records, or None when it records none (or something that is no total): the
    tree itself is replayed before use, so an edited summary costs only the ordering."""
    summary = manifest.get("summary")
    total = summary.get("ub") if isinstance(summary, dict) else None
    return total if type(total) is int else None


def stored_trees(store: ArtifactStore, game: Game) -> list[StoredTree]:
    """The finished upper_bound trees that fit `game`, best first (lowest recorded total, then key; trees
    without a recorded total last)."""
    found = [StoredTree(recorded_total(manifest), artifact.key, artifact.file(TREE.name))
             for artifact, manifest in artifacts_for(store, "upper_bound", game) if artifact.file(TREE.name).is_file()]
    return sorted(found, key=lambda t: (t.total is None, t.total or 0, t.key))


def best_tree(store: ArtifactStore, game: Game) -> StoredTree | None:
    """The store's best upper_bound tree for `game` with a recorded total (lowest, then key), or None."""
    trees = [t for t in stored_trees(store, game) if t.total is not None]
    return trees[0] if trees else None

"""Stage catalogue: every certificate under the outputs and in the committed archives (stage.committed: the
checkout's catalogue/) in catalogue.json, catalogue.md and a static index.html, and each row's tree as a page to
explore in a browser (explore-<game>-<mode>-<limit>-<sha256>.html).

The gathering (one row per game, mode and guess limit, verified only by a current verification record) is
pipeline/artifacts/catalogue.py and the two readable forms pipeline/artifacts/catalogue_page.py; this module
writes them.  It reads every game's certificates, so its key holds no game: it holds what it gathered (each
certificate's digest, verification state and links, each committed archive's sha256), so a new proof, a check,
a bundle or a new committed archive re-keys it, and an unchanged store finds the catalogue up to date."""

import os
from pathlib import Path

from pipeline import PipelineError
from pipeline.artifacts.catalogue import committed_bundles, committed_digests, gather, shown_tree
from pipeline.artifacts.catalogue_page import explorer_facts, explorer_heading, headline_text, markdown, page
from pipeline.artifacts.identity import no_identity
from pipeline.artifacts.outputs import CATALOGUE, CATALOGUE_JSON, CATALOGUE_PAGE, CATALOGUE_TABLE, write_json
from pipeline.artifacts.tree_explorer import explorer_page
from pipeline.runtime.store import config_key
from pipeline.stages.base import StageContext
from pipeline.config.settings import PROJECT_ROOT
from pipeline.config.stages import CatalogueConfig

NAME, VERSION, INPUTS = "catalogue", 5, ()  # the stage contract: stages/base.py
OUTPUTS = CATALOGUE  # catalogue.json, catalogue.md, index.html, explore-*.html: pipeline/artifacts/outputs.py
SCHEMA = CatalogueConfig
game_identity = no_identity  # every game's certificates, whatever game= names


def validate(cfg: CatalogueConfig, game) -> None:
    from pipeline.config.validation import at_least

    at_least(cfg, "openers_shown", 1)
    folder = cfg.committed  # the default names no folder in an installed copy: no committed archives, no error
    if folder is not None and not Path(folder).is_dir() and folder != CatalogueConfig.committed:
        raise PipelineError(f"stage.committed={folder} is not a folder (give the folder of committed archives, "
                            "e.g. the checkout's catalogue/, or null for the outputs only)")


def shown_folder(folder: str) -> str:
    """How the pages name the committed folder: from the checkout's root when inside it (catalogue), else whole."""
    path = Path(os.path.abspath(folder))
    return path.relative_to(PROJECT_ROOT).as_posix() if path.is_relative_to(PROJECT_ROOT) else str(path)


def bundles_of(cfg: CatalogueConfig, store):
    """The committed archives, unpacked for the time of the `with` (pipeline/artifacts/catalogue.py)."""
    if cfg.committed is None:
        return committed_bundles(store, None, "")
    return committed_bundles(store, Path(cfg.committed), shown_folder(cfg.committed))


def key_material(cfg: CatalogueConfig, game, store) -> dict:
    """What the catalogue would say now: of the outputs (folders, digests, verification records, bundles present)
    and of the committed archives (their sha256 and verification records, read without unpacking them: the run
    unpacks and reads each once)."""
    committed = [] if cfg.committed is None else committed_digests(Path(cfg.committed), shown_folder(cfg.committed))
    return {"gathered": config_key(gather(store)), "committed": committed}


def run(ctx: StageContext, cfg: CatalogueConfig) -> dict:
    with bundles_of(cfg, ctx.store) as bundles:
        catalogue = gather(ctx.store, bundles)
        outputs = str(ctx.store.root)
        write_json(ctx.out.file(CATALOGUE_JSON.name), catalogue)
        ctx.out.file(CATALOGUE_TABLE.name).write_text(markdown(catalogue, outputs, cfg.openers_shown))
        ctx.out.file(CATALOGUE_PAGE.name).write_text(page(catalogue, outputs, cfg.openers_shown))
        explorers = [row for row in catalogue["rows"] if row["shown"]["explorer_path"]]
        for row in explorers:
            entry = row["shown"]
            ctx.out.file(entry["explorer_path"]).write_text(explorer_page(
                shown_tree(ctx.store, entry, bundles), entry["drawn_as"], explorer_heading(row), explorer_facts(row)))
    return {**catalogue["counts"], "explorers": len(explorers), "outputs": outputs,
            "headline": headline_text(catalogue, outputs)}


def headline(summary: dict, folder) -> str:
    """`3 results (2 verified) from 4 certificates, 1 unreadable`, or `no certificates under <outputs>`."""
    return summary["headline"]

"""Stage catalogue: every certificate under the outputs in catalogue.json, catalogue.md and a static index.html,
and each row's tree as a page to explore in a browser (explore-<game>-<mode>-<limit>-<sha256>.html).

The gathering (one row per game, mode and guess limit, verified only by a current verification record) is
pipeline/artifacts/catalogue.py and the two readable forms pipeline/artifacts/catalogue_page.py; this module
writes them.  It reads every game's certificates, so its key holds no game: it holds what it gathered (each
certificate's digest, verification state and links), so a new proof, a check or a bundle re-keys it, and an
unchanged store finds the catalogue up to date."""

from pipeline.artifacts.catalogue import gather, shown_tree
from pipeline.artifacts.catalogue_page import explorer_facts, explorer_heading, headline_text, markdown, page
from pipeline.artifacts.identity import no_identity
from pipeline.artifacts.outputs import CATALOGUE, CATALOGUE_JSON, CATALOGUE_PAGE, CATALOGUE_TABLE, write_json
from pipeline.artifacts.tree_explorer import explorer_page
from pipeline.runtime.store import config_key
from pipeline.stages.base import StageContext
from pipeline.config.stages import CatalogueConfig

NAME, VERSION, INPUTS = "catalogue", 4, ()  # the stage contract: stages/base.py
OUTPUTS = CATALOGUE  # catalogue.json, catalogue.md, index.html, explore-*.html: pipeline/artifacts/outputs.py
SCHEMA = CatalogueConfig
game_identity = no_identity  # every game's certificates, whatever game= names


def validate(cfg: CatalogueConfig, game) -> None:
    from pipeline.config.validation import at_least

    at_least(cfg, "openers_shown", 1)


def key_material(cfg: CatalogueConfig, game, store) -> dict:
    """What the catalogue would say now (folders, digests, verification records, bundles present)."""
    return {"gathered": config_key(gather(store))}


def run(ctx: StageContext, cfg: CatalogueConfig) -> dict:
    catalogue = gather(ctx.store)
    outputs = str(ctx.store.root)
    write_json(ctx.out.file(CATALOGUE_JSON.name), catalogue)
    ctx.out.file(CATALOGUE_TABLE.name).write_text(markdown(catalogue, outputs, cfg.openers_shown))
    ctx.out.file(CATALOGUE_PAGE.name).write_text(page(catalogue, outputs, cfg.openers_shown))
    explorers = [row for row in catalogue["rows"] if row["shown"]["explorer_path"]]
    for row in explorers:
        entry = row["shown"]
        ctx.out.file(entry["explorer_path"]).write_text(explorer_page(
            shown_tree(ctx.store, entry), entry["drawn_as"], explorer_heading(row), explorer_facts(row)))
    return {**catalogue["counts"], "explorers": len(explorers), "outputs": outputs,
            "headline": headline_text(catalogue, outputs)}


def headline(summary: dict, folder) -> str:
    """`3 results (2 verified) from 4 certificates, 1 unreadable`, or `no certificates under <outputs>`."""
    return summary["headline"]

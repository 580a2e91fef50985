"""Stage openers: every allowed guess ranked by the average information it gives over all secrets.

For each guess: average remaining candidates (sum t^2 / |S|), average information in
bits (sum (t/|S|) log2(|S|/t)), parts and largest part, computed in blocks of guesses
over Ray.  Writes openers.parquet (best first by information) and openers.png (top N).

`candidates=guesses` counts the remaining candidates among all allowed guesses (answer
list unknown) while averaging over the secrets S: (1/|S|) sum_s t_G(s) and
(1/|S|) sum_s log2(|G| / t_G(s)); each task builds its rows of the |G| x |G| code matrix
with the feedback kernel.  This is the variant the write-up's figures (SOARE about
6.2 bits, about 274 words left) correspond to.
"""

import numpy as np
import pyarrow as pa

from pipeline.artifacts.outputs import OPENER_RANKING, OPENER_RANKING_PICTURE, OPENERS, write_table
from pipeline.feedback.parquet import load_matrix
from pipeline.search.strategies.simulate import opener_measures, opener_stats
from pipeline.stages.base import StageContext
from pipeline.config.stages import OpenersConfig

NAME, VERSION, INPUTS = "openers", 1, ("feedback",)  # the stage contract: stages/base.py
OUTPUTS = OPENERS  # openers.parquet, openers.png: pipeline/artifacts/outputs.py


SCHEMA = OpenersConfig


def validate(cfg: OpenersConfig, game) -> None:
    from pipeline.config.validation import at_least, one_of

    one_of(cfg, "candidates", ("answers", "guesses"))
    at_least(cfg, "block_rows", 1)
    at_least(cfg, "plot_top", 1)


def _block(bounds, codes, n_codes, encoded_guesses, answer):
    start, stop = bounds
    block = codes[start:stop]
    if encoded_guesses is None:
        return opener_stats(block, block, n_codes)
    from pipeline.feedback.matrix import answer_matrix

    return opener_stats(block, answer_matrix(encoded_guesses[start:stop], encoded_guesses, answer), n_codes)


def run(ctx: StageContext, cfg: OpenersConfig) -> dict:
    game = ctx.game
    codes = load_matrix(ctx.inputs["feedback"], game)
    n_secrets = codes.shape[1]
    blocks = [(i, min(i + cfg.block_rows, codes.shape[0])) for i in range(0, codes.shape[0], cfg.block_rows)]
    over_guesses = cfg.candidates == "guesses"
    shared = (codes, game.n_codes, game.encoded_guesses() if over_guesses else None, game.answer)
    parts = ctx.fan_out(_block, blocks, shared, label=NAME)
    n_parts, largest, sum_left, sum_log = (np.concatenate([p[k] for p in parts]) for k in range(4))
    n_universe = len(game.guesses) if over_guesses else n_secrets
    avg_remaining, avg_bits = opener_measures(sum_left, sum_log, n_secrets, n_universe)
    table = pa.table({
        "opener": list(game.guesses),
        "avg_remaining": avg_remaining,
        "avg_bits": avg_bits,
        "parts": n_parts,
        "largest": largest,
        "is_secret": game.secret_of_guess >= 0,
    }).sort_by([("avg_bits", "descending"), ("avg_remaining", "ascending"), ("opener", "ascending")])
    write_table(ctx.out.file(OPENER_RANKING.name), table)
    top = min(cfg.plot_top, table.num_rows)
    from pipeline.report.plots import information_plot  # the report's chart: bits below the best

    information_plot(ctx.out.file(OPENER_RANKING_PICTURE.name), ctx.out.file(OPENER_RANKING.name).parent, top,
                     f"{game.name}: top {top} openers by information over {n_secrets} secrets"
                     + (f"\n(candidates among all {n_universe} allowed guesses)" if over_guesses else ""))
    best = table.slice(0, 1).to_pylist()[0]
    by_remaining = table.sort_by([("avg_remaining", "ascending"), ("opener", "ascending")]).slice(0, 1).to_pylist()[0]
    return {
        "openers": table.num_rows, "secrets": n_secrets, "candidates": cfg.candidates,
        "best_by_bits": best["opener"], "best_bits": round(best["avg_bits"], 4),
        "best_bits_remaining": round(best["avg_remaining"], 2),
        "best_by_remaining": by_remaining["opener"], "best_remaining": round(by_remaining["avg_remaining"], 2),
        "top10_by_bits": table.column("opener").to_pylist()[:10],
    }


def headline(summary: dict, folder) -> str:
    """The best openers by information and by candidates left, over the secrets."""
    return (f"best by information {summary['best_by_bits']} ({summary['best_bits']} bits), best by candidates "
            f"left {summary['best_by_remaining']} ({summary['best_remaining']} on average); "
            f"{summary['openers']} openers over {summary['secrets']} secrets")

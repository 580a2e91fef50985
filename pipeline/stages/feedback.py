"""Stage feedback: the |G| x |S| code matrix as matrix.parquet, plus both word lists."""

import numpy as np

from pipeline.artifacts.identity import lists_identity
from pipeline.artifacts.outputs import FEEDBACK, GUESSES, MATRIX, SECRETS
from pipeline.feedback.matrix import answer_matrix
from pipeline.feedback.parquet import write_matrix
from pipeline.stages.base import StageContext
from pipeline.config.stages import FeedbackConfig

NAME, VERSION, INPUTS = "feedback", 1, ()  # the stage contract: stages/base.py
OUTPUTS = FEEDBACK  # matrix.parquet, guesses.txt, secrets.txt: pipeline/artifacts/outputs.py


def game_identity(game) -> dict:
    """The matrix depends on the lists only (hard mode and the guess limit share it)."""
    return lists_identity(game)


def validate(cfg: FeedbackConfig, game) -> None:
    from pipeline.config.validation import at_least

    at_least(cfg, "ray_threshold_cells", 0)
    at_least(cfg, "block_rows", 1)
    at_least(cfg, "row_group_rows", 1)


def _block(bounds, guesses, secrets, answer):
    start, stop = bounds
    return answer_matrix(guesses[start:stop], secrets, answer)


def blocks_for(n_rows: int, cfg: FeedbackConfig, cluster_cpus: int) -> list[tuple[int, int]]:
    """Row blocks of equal size, a few per cluster CPU (the runtime's `batch_count`), none above
    stage.block_rows: a bigger cluster gets more, smaller tasks; the matrix is the same however it is split."""
    from itertools import accumulate

    from pipeline.runtime.policy import batch_count, split_sizes

    stops = list(accumulate(split_sizes(n_rows, batch_count(n_rows, cluster_cpus, max_batch=cfg.block_rows))))
    return list(zip([0, *stops[:-1]], stops))


def _build(ctx: StageContext, cfg: FeedbackConfig) -> np.ndarray:
    game = ctx.game
    small = len(game.guesses) * len(game.secrets) <= cfg.ray_threshold_cells
    blocks = blocks_for(len(game.guesses), cfg, ctx.cluster_cpus())
    parts = ctx.fan_out(_block, blocks, (game.encoded_guesses(), game.encoded_secrets(), game.answer), label="feedback",
                        small=small)
    return np.concatenate(parts)


def run(ctx: StageContext, cfg: FeedbackConfig) -> dict:
    codes = _build(ctx, cfg)
    meta = {**game_identity(ctx.game), "game": ctx.game.name, "length": ctx.game.length}
    write_matrix(ctx.out.file(MATRIX.name), codes, meta, cfg.row_group_rows)
    ctx.out.file(GUESSES.name).write_text("\n".join(ctx.game.guesses) + "\n")
    ctx.out.file(SECRETS.name).write_text("\n".join(ctx.game.secrets) + "\n")
    return {"shape": list(codes.shape), "dtype": codes.dtype.name}


SCHEMA = FeedbackConfig


def headline(summary: dict, folder) -> str:
    """`code matrix 206 guesses × 206 secrets (uint8)`."""
    rows, cols = summary["shape"]
    return f"code matrix {rows} guesses × {cols} secrets ({summary['dtype']})"

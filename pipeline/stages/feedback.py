"""Stage feedback: the |G| x |S| code matrix as matrix.parquet, plus both word lists."""

import numpy as np

from pipeline.artifacts.identity import lists_identity
from pipeline.artifacts.outputs import FEEDBACK, GUESSES, MATRIX, SECRETS
from pipeline.feedback.matrix import answer_matrix, row_blocks
from pipeline.feedback.parquet import write_matrix
from pipeline.stages.base import StageContext
from pipeline.stages.schemas import FeedbackConfig

NAME, VERSION, INPUTS = "feedback", 1, ()  # the stage contract: stages/base.py
OUTPUTS = FEEDBACK  # matrix.parquet, guesses.txt, secrets.txt: pipeline/artifacts/outputs.py


def game_identity(game) -> dict:
    """The matrix depends on the lists only (hard mode and the guess limit share it)."""
    return lists_identity(game)


def validate(cfg: FeedbackConfig, game) -> None:
    from pipeline.validation import at_least

    at_least(cfg, "ray_threshold_cells", 0)
    at_least(cfg, "block_rows", 1)
    at_least(cfg, "row_group_rows", 1)


def _block(bounds, guesses, secrets, answer):
    start, stop = bounds
    return answer_matrix(guesses[start:stop], secrets, answer)


def _build(ctx: StageContext, cfg: FeedbackConfig) -> np.ndarray:
    game = ctx.game
    small = len(game.guesses) * len(game.secrets) <= cfg.ray_threshold_cells
    blocks = row_blocks(len(game.guesses), cfg.block_rows)
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

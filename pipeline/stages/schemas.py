"""Every stage's config schema, in one light module.

The command line registers every schema with Hydra (the `stage` and `upstream` groups) before it knows
which stage runs; keeping the dataclasses here, apart from the stage modules and their numba, pyarrow and
HiGHS imports, lets it compose a config without importing any stage.  Each stage module still declares
its own `SCHEMA` (the stage contract, stages/base.py) by naming its class from here.  A schema's values
are part of every artifact key, so this file is not hashed into the keys (stages/runner.py).
"""

from dataclasses import dataclass, field
from typing import Any

from pipeline.stages.base import StageConfig

# stage name -> its schema (filled by @schema below); the order is the order stages are listed in
SCHEMAS: dict[str, type[StageConfig]] = {}


def schema(cls: type[StageConfig]) -> type[StageConfig]:
    """Register a stage's config dataclass under its default `name`."""
    SCHEMAS[cls.name] = cls
    return cls


@schema
@dataclass
class FeedbackConfig(StageConfig):
    name: str = "feedback"
    ray_threshold_cells: int = 100_000_000  # |G|*|S| up to this is small work: in-process unless Ray is open
    block_rows: int = 2048  # guesses per task
    row_group_rows: int = 1024  # Parquet rows per row group


@schema
@dataclass
class HeuristicsConfig(StageConfig):
    name: str = "heuristics"
    combinations: list[str] = field(default_factory=list)  # e.g. ["MostParts,InSet,ExpSizeSplit"]; [] = all 325
    batch_size: int = 20  # combinations per Ray task
    arithmetic: str = "paper"  # "paper": float64 as the paper (its Table 1); "exact": exact ties


@schema
@dataclass
class UpperBoundConfig(StageConfig):
    name: str = "upper_bound"
    breadth: int = 10  # n in ApMinTotal(S, n)
    openers: Any = "ranked"  # ranked (top_k of the combined valuation) | all | [word, ...]
    top_k: int | None = None  # openers tried when ranked; None = breadth (the paper's behaviour)
    ranking: str = "ExpSizeSplit"  # Best_n's key after (MostParts, InSet): ExpSizeSplit | MaxSizeSplit
    batch_size: int = 1  # openers per Ray task
    max_memo_entries: int = 2_000_000  # memoised candidate sets per task (memory bound)
    refine: int = 0  # the best `refine` openers are re-solved exactly; the best tree of all is UB
    refine_memo_bits: int = 22  # exact-search memo of 2**bits entries (~41 bytes each) per refine task
    objective: str = "total"  # total | max_then_total (fewest guesses at worst, then the least Total)
    symmetry: bool = True  # ranked/all: one opener per orbit of the game's symmetries (none for Wordle lists)
    tree_depth: int = 2  # levels of each tree drawn in the .svg beside its tree .json (root and its children)


@schema
@dataclass
class LowerBoundConfig(StageConfig):
    name: str = "lower_bound"
    ub: int | None = None  # None = take UB from the upper_bound artifact
    max_level: int = 8
    batches_per_level: int | None = None  # openers of a level split into this many tasks; None = 4 per cluster CPU
    max_batch: int = 2000  # ... and no task gets more openers than this
    hard_from: int = 2  # hard mode: levels >= hard_from use the hard-mode bounds (normal ones before)
    symmetry: bool = True  # one opener per orbit of the game's symmetries (none for Wordle lists)


@schema
@dataclass
class ExactConfig(StageConfig):
    name: str = "exact"
    openers: list[str] = field(default_factory=list)  # [] = the opener ranked first by MostParts,InSet,ExpSizeSplit
    memo_bits: int = 22  # exact-search memo of 2**memo_bits entries (~41 bytes each) per task
    objective: str = "total"  # total | max_then_total (fewest guesses at worst, then the least Total)
    tree_depth: int = 2  # levels of each tree drawn in the .svg beside its tree .json (root and its children)


@schema
@dataclass
class ProveConfig(StageConfig):
    name: str = "prove"
    max_level: int = 5  # class bounds LB_1..LB_max_level are tried before an exact solve
    memo_bits: int = 20  # exact-search memo per task: 2**memo_bits entries (~41 bytes each)
    objective: str = "total"  # the only objective a proof closes (max_then_total is refused); recorded in the certificate
    tree_depth: int = 2  # levels of the proof's tree (the upper bound's, or a better one it found) drawn in tree.svg


@schema
@dataclass
class LeaderboardConfig(StageConfig):
    name: str = "leaderboard"
    k: int = 10  # how many of the best openers get exact values (every opener tied with the k-th is listed too)
    candidates: int = 30  # the best-ranked openers (MostParts, InSet, ExpSizeSplit) also solved before the funnel
    objective: str = "total"  # the only objective its bounds certify (max_then_total is refused)
    funnel_level: int = 5  # the deepest V_i of the funnel; its survivors are then solved exactly
    closure_level: int = 5  # a listed opener's class bounds try LB_1..LB_closure_level before an exact value
    memo_bits: int = 20  # exact-search memo per task: 2**memo_bits entries (~41 bytes each)
    round_size: int | None = None  # survivors solved per round before the threshold is lowered; None = 2 per CPU
    tree_depth: int = 2  # levels of each tree drawn in the .svg beside its tree .json (root and its children)


@schema
@dataclass
class BlindfoldConfig(StageConfig):
    name: str = "blindfold"
    guesses_from: str = "allowed"  # allowed | secrets (only answer words may be played)
    check: list[str] = field(default_factory=list)  # verify this set instead of solving
    exclude: list[str] = field(default_factory=list)  # guesses that may not be used
    initial: list[str] = field(default_factory=list)  # a known set to start from, used only if verified to separate all
    seed_pairs: list[str] = field(default_factory=list)  # extra starting pairs, "word1,word2"
    seed_limit: int | None = 100  # start from the seeds separated by the fewest guesses (None: all seeds)
    warm_start: bool = True  # with guesses_from=allowed, first solve with the answer words only (an incumbent)
    uniqueness: bool = False  # prove the set is the only one of its size (one lazy MIP, no-good cut)
    time_limit_s: float = 900.0
    max_rounds: int = 200
    threads: int | None = None  # HiGHS threads; None = its default
    model_format: str = "lp"  # lp | mps: export of the final relaxation
    mode: str = "cover"  # cover: fewest fixed guesses; hybrid: `fixed` guesses, then trees of <= `depth` guesses
    fixed: int = 2  # hybrid: fixed guesses played without looking
    depth: int = 3  # hybrid: further guesses each class's adaptive tree may use
    beam: int = 20  # hybrid: candidate sets kept per step when the k-sets are too many to enumerate
    exhaustive_sets: int = 10000  # hybrid: enumerate every k-set when there are at most this many


@schema
@dataclass
class OpenersConfig(StageConfig):
    name: str = "openers"
    candidates: str = "answers"  # answers: remaining counted among S; guesses: among all of G
    block_rows: int = 2048  # guesses per Ray task
    plot_top: int = 30  # openers shown in openers.png


DEFAULT_SIMULATE_STRATEGIES = ["random_candidate", "elimination", "elimination_answers", "elimination_weighted",
                               "elimination_weighted_answers", "tree"]


@schema
@dataclass
class SimulateConfig(StageConfig):
    name: str = "simulate"
    strategies: list[str] = field(default_factory=lambda: list(DEFAULT_SIMULATE_STRATEGIES))
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 4])  # for the seeded strategies
    opener: str | None = "tares"  # first guess of both elimination rules; null = the rule's own
    max_guesses: int | None = None  # failure after this many guesses; None = game.max_guesses (may only tighten)
    block_secrets: int = 512  # secrets per Ray task


@schema
@dataclass
class ReportConfig(StageConfig):
    name: str = "report"
    plots: bool = True
    tree_depth: int = 2  # levels of the best tree drawn in tree.svg (Figure 2)


@schema
@dataclass
class ReproduceConfig(StageConfig):
    name: str = "reproduce"
    only: list[str] = field(default_factory=list)  # row groups (table1 ... general); [] = every group
    rows: list[str] = field(default_factory=list)  # row ids or patterns ("table3.mini_nerdle.*"); [] = all

"""Every stage's config schema, in one light module.

The command line registers every schema with Hydra (the `stage` and `upstream` groups) before it knows
which stage runs; keeping the dataclasses here, apart from the stage modules and their numba, pyarrow and
HiGHS imports, lets it compose a config without importing any stage.  Each stage module still declares
its own `SCHEMA` (the stage contract, stages/base.py) by naming its class from here.  A schema's values
are part of every artifact key, so this file is not hashed into the keys (stages/runner.py).

These dataclasses are the one place a stage's settings, their types, defaults and help lines are written
(`setting`): conf/stage/<name>.yaml only names the schema, and `python -m pipeline list stage=<name>` prints
the settings from here.
"""

from dataclasses import dataclass
from typing import Any

from omegaconf import MISSING

from pipeline.config.settings import package_dir, setting

@dataclass
class StageConfig:
    """The settings every stage has: its name and `force`."""

    name: str = MISSING
    force: bool = False  # recompute even if a finished artifact exists


# help lines of the settings every stage inherits from StageConfig (above)
INHERITED_HELP = {"force": "recompute even if a finished artifact exists"}
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
    ray_threshold_cells: int = setting(100_000_000, "|G|*|S| up to this is small work: in-process unless Ray is "
                                                    "open")
    block_rows: int = setting(2048, "at most this many guesses per task (tasks: 4 per cluster CPU, or more)")
    row_group_rows: int = setting(1024, "Parquet rows per row group")


@schema
@dataclass
class HeuristicsConfig(StageConfig):
    name: str = "heuristics"
    combinations: list[str] = setting([], "e.g. [\"MostParts,InSet,ExpSizeSplit\"]; [] = all 325")
    batch_size: int = setting(20, "combinations per Ray task")
    arithmetic: str = setting("paper", "paper: float64 as the paper (its Table 1); exact: exact ties")


@schema
@dataclass
class UpperBoundConfig(StageConfig):
    name: str = "upper_bound"
    breadth: int = setting(10, "n in ApMinTotal(S, n)")
    openers: Any = setting("ranked", "ranked (top_k of the combined valuation) | all | [word, ...]")
    top_k: int | None = setting(None, "openers tried when ranked; null = breadth (the paper's behaviour)")
    ranking: str = setting("ExpSizeSplit", "Best_n's key after (MostParts, InSet): ExpSizeSplit | MaxSizeSplit "
                                           "(the authors' earlier code)")
    batch_size: int = setting(64, "at most this many openers per Ray task (tasks: 4 per cluster CPU, or more)",
                              sizing=True)
    max_memo_entries: int = setting(2_000_000, "memoised candidate sets per task (memory bound)")
    widen_breadth: int | None = setting(100, "under a guess limit no opener tried meets: an opener's classes that "
                                             "break it are searched again at 3, 10, 30, 100, ... above breadth, up "
                                             "to this (null: never)")
    widen_top_k: int = setting(200, "... and if still none meets it (openers ranked), this many ranked openers "
                                    "are searched the same way")
    refine: int = setting(0, "the best `refine` openers are then solved exactly (game's rules); the best tree of "
                             "all is UB")
    refine_memo_bits: int = setting(22, "exact-search memo of 2**bits entries (~41 bytes each) per refine task")
    objective: str = setting("total", "total | max_then_total (fewest guesses at worst, then the least Total)")
    symmetry: bool = setting(True, "ranked/all: one opener per orbit of the game's symmetries (none for Wordle "
                                   "lists)")
    tree_depth: int = setting(2, "levels of each tree drawn in the .svg beside its tree .json (root and its "
                                 "children)")


@schema
@dataclass
class LowerBoundConfig(StageConfig):
    name: str = "lower_bound"
    ub: int | None = setting(None, "null = take UB from the upper_bound artifact")
    max_level: int = setting(8, "the deepest V_i tried")
    skip_levels: list[int] = setting([], "normal mode: levels left out ([4] costs original Wordle's funnel 18% "
                                         "less CPU, the 3158-answer list's 17% more: docs/algorithms.md §4)")
    hard_skip_levels: list[int] = setting([3], "hard mode: levels left out (V_4 right after V_2 costs no more than "
                                               "V_3 then V_4)")
    batches_per_level: int | None = setting(None, "openers of a level split into this many tasks; null = 4 per "
                                                  "cluster CPU")
    max_batch: int = setting(2000, "... and no task gets more openers than this")
    hard_from: int = setting(2, "hard mode: levels >= hard_from use the hard-mode bounds (normal-mode bounds "
                                "before)")
    symmetry: bool = setting(True, "one opener per orbit of the game's symmetries (colour/position permutations; "
                                   "Wordle has none)")


@schema
@dataclass
class ExactConfig(StageConfig):
    name: str = "exact"
    openers: list[str] = setting([], "[] = the opener ranked first by MostParts,InSet,ExpSizeSplit")
    memo_bits: int = setting(22, "exact-search memo of 2**memo_bits entries (~41 bytes each) per task")
    objective: str = setting("total", "total | max_then_total (fewest guesses at worst, then the least Total)")
    tree_depth: int = setting(2, "levels of each tree drawn in the .svg beside its tree .json (root and its "
                                 "children)")


@schema
@dataclass
class ProveConfig(StageConfig):
    name: str = "prove"
    max_level: int = setting(5, "class bounds LB_1..LB_max_level are tried before an exact solve")
    memo_bits: int = setting(20, "exact-search memo per task: 2**memo_bits entries (~41 bytes each)")
    objective: str = setting("total", "the only objective a proof closes (max_then_total is refused); recorded in "
                                      "the certificate")
    tree_depth: int = setting(2, "levels of the proof's tree (the upper bound's, or a better one it found) drawn "
                                 "in tree.svg")


@schema
@dataclass
class LeaderboardConfig(StageConfig):
    name: str = "leaderboard"
    k: int = setting(10, "how many of the best openers get exact values (every opener tied with the k-th is listed "
                         "too)")
    candidates: int = setting(30, "the best-ranked openers (MostParts, InSet, ExpSizeSplit) also solved before the "
                                  "funnel")
    objective: str = setting("total", "the only objective its bounds certify (max_then_total is refused)")
    funnel_level: int = setting(5, "the deepest V_i of the funnel; its survivors are then solved exactly")
    closure_level: int = setting(5, "a listed opener's class bounds try LB_1..LB_closure_level before an exact "
                                    "value")
    memo_bits: int = setting(20, "exact-search memo per task: 2**memo_bits entries (~41 bytes each)")
    round_size: int | None = setting(None, "survivors solved per round before the threshold is lowered; null = 2 "
                                           "per cluster CPU")
    tree_depth: int = setting(2, "levels of each tree drawn in the .svg beside its tree .json (root and its "
                                 "children)")


@schema
@dataclass
class BlindfoldConfig(StageConfig):
    name: str = "blindfold"
    guesses_from: str = setting("allowed", "allowed | secrets (only answer words may be played)")
    check: list[str] = setting([], "verify this set instead of solving")
    exclude: list[str] = setting([], "guesses that may not be used")
    initial: list[str] = setting([], "a known set as the starting upper bound, used only if the code verifies it "
                                     "separates every secret")
    seed_pairs: list[str] = setting([], "extra starting pairs, \"word1,word2\"")
    seed_limit: int | None = setting(100, "start from the seeds separated by the fewest guesses (null: all seeds)")
    warm_start: bool = setting(True, "with guesses_from=allowed, first solve with the answer words only (an "
                                     "incumbent)")
    uniqueness: bool = setting(False, "prove the set is the only one of its size (one lazy MIP, no-good cut)")
    time_limit_s: float = setting(900.0, "seconds for the whole solve")
    max_rounds: int = setting(200, "rounds of the lazy loop (solve, add the pairs left unseparated)")
    threads: int | None = setting(None, "HiGHS threads; null = its default")
    model_format: str = setting("lp", "lp | mps: export of the final relaxation")
    mode: str = setting("cover", "cover: fewest fixed guesses | hybrid: stage.fixed guesses, then adaptive trees "
                                 "of <= stage.depth")
    method: str = setting("lazy", "cover, solved by: lazy (one set-cover MIP, pairs added lazily) | cubes "
                                  "(cube-and-conquer: the fixed sets split into cubes, each a MIP on a Ray task)")
    cube_depth: int = setting(2, "cubes: levels of the split below the root")
    cube_target: int = setting(5000, "cubes: no further split once a level keeps this many cubes")
    cube_cluster_cuts: bool = setting(False, "cubes: each cube's LP bound also holds the cluster cuts of the "
                                             "secrets' one-position families and anagram groups (certified)")
    cube_max_families: int | None = setting(None, "cubes, with cube_cluster_cuts: the cuts of the largest "
                                                  "families only (null: all; each family's cuts add LP rows)")
    cube_time_limit_s: float = setting(3600.0, "cubes: seconds for one cube's MIP (an open cube leaves f* "
                                               "unproven)")
    fixed: int = setting(2, "hybrid: fixed guesses played without looking")
    depth: int = setting(3, "hybrid: further guesses each class's adaptive tree may use")
    beam: int = setting(20, "hybrid: candidate sets kept per step when the k-sets are too many to enumerate")
    exhaustive_sets: int = setting(10000, "hybrid: enumerate every k-set (an optimal choice) when there are at "
                                          "most this many")
    decision: str = setting("branching", "hybrid, when the beam finds no set, decided exactly by: branching (a "
                                         "search over the fixed sets) | mip (a lazy hitting-set MIP, HiGHS)")


@schema
@dataclass
class OpenersConfig(StageConfig):
    name: str = "openers"
    candidates: str = setting("answers", "answers: remaining counted among S; guesses: among all of G")
    block_rows: int = setting(2048, "guesses per Ray task")
    plot_top: int = setting(30, "openers shown in openers.png")


DEFAULT_SIMULATE_STRATEGIES = ["random_candidate", "elimination", "elimination_answers", "elimination_weighted",
                               "elimination_weighted_answers", "tree"]


@schema
@dataclass
class SimulateConfig(StageConfig):
    name: str = "simulate"
    strategies: list[str] = setting(DEFAULT_SIMULATE_STRATEGIES, "the strategies played (also: "
                                                               "random_candidate_answers)")
    seeds: list[int] = setting([0, 1, 2, 3, 4], "for the seeded strategies (random candidate, elimination)")
    opener: str | None = setting("tares", "first guess of the elimination strategies (both rules); null = the "
                                          "rule's own choice")
    max_guesses: int | None = setting(None, "failure after this many guesses; null = game.max_guesses (may only "
                                            "tighten)")
    block_secrets: int = setting(512, "secrets per Ray task")


@schema
@dataclass
class ReportConfig(StageConfig):
    name: str = "report"
    plots: bool = setting(True, "funnel.png, tree_distribution.png, opener_totals.png, simulated_distribution.png, "
                                "opener_information.png")
    tree_depth: int = setting(2, "levels of the best tree (upper_bound or exact) drawn in tree.svg beside "
                                 "report.md (Figure 2)")


@schema
@dataclass
class ReproduceConfig(StageConfig):
    name: str = "reproduce"
    only: list[str] = setting([], "groups: table1 table2 table3 table4 closure hard blindfold6 blindfold10 hybrid "
                                  "simple openers general; [] = all")
    rows: list[str] = setting([], "row ids or patterns, e.g. [\"table3.mini_nerdle.*\"]; [] = every row of the "
                                  "chosen groups")


@schema
@dataclass
class CatalogueConfig(StageConfig):
    name: str = "catalogue"
    openers_shown: int = setting(5, "optimal openers named in a cell of catalogue.md and index.html (catalogue.json "
                                    "lists them all)")
    committed: str | None = setting(str(package_dir("catalogue")), "the folder of committed proof archives "
                                    "listed beside the outputs' (*.tar.gz): the checkout's catalogue/ (none in an "
                                    "installed copy); null = the outputs only")



def upstream_schema():
    """A dataclass with one typed field per stage: the `upstream` config group's schema."""
    from dataclasses import field, make_dataclass

    return make_dataclass("UpstreamConfig", [(name, schema, field(default_factory=schema))
                                             for name, schema in SCHEMAS.items()])

"""Every file a stage writes into its artifact folder: its name, what it holds, and the writer or loader of its kind.

Stages, the report and the assistant name an artifact's files through the declarations here rather than by
literals, so each name and what its file holds are written down once; a stage's contract lists its own
(`OUTPUTS`, pipeline/stages/base.py) and a test checks a finished artifact against that list.

Kinds and their one writer or loader:
- Parquet tables: `write_table` (pyarrow's default settings, the ones every table here was written with) and
  `read_table`; the code matrix alone has its own writer and loader (pipeline/feedback/parquet.py: zstd, no
  dictionary, metadata with a CRC), and a mapped cache of it in the artifact's hidden `.cache/` folder that
  later readers make (not part of the artifact).
- JSON documents (summaries, certificates, solutions): `write_json` (indented, a final newline) and
  `read_json_file` of the store (pipeline/runtime/store.py; `Artifact.read_json` for a finished artifact).
- Strategy trees (`<name>.json`, `.txt`, `.svg`): pipeline/artifacts/trees.py writes and loads them.
- Text, Markdown, SVG and PNG files: written by the stage or plot that draws them.

The runner adds manifest.json (what made the artifact, every file's size) and stage.log (the stage's log) to
every artifact; `verify-certificate` later adds verification.json to a proof folder (pipeline/proofs/certificates/record.py);
`bundle` packs a prove, leaderboard or blindfold folder into <folder>.tar.gz beside it (pipeline/artifacts/bundle.py).
The proof checker keeps its own names for the files it reads (it is written from the definitions, apart from
the prover): certificate.json, tree.json and the leaderboard's tree-<opener>.json are named there too.
"""

import fnmatch
import json
from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True)
class Output:
    """One file of a stage's artifact: its `name` (a glob pattern for files named after an opener, such as
    `tree-*.json`), what it `holds` (columns or keys), and whether every run writes it (`always`; False: only in
    some modes, or when there is something to write)."""

    name: str
    holds: str
    always: bool = True

    def matches(self, file_name: str) -> bool:
        """Whether `file_name` is this output (its name, or a name its pattern allows)."""
        return fnmatch.fnmatchcase(file_name, self.name)

    def named(self, fill: str) -> str:
        """The file name of a pattern output with `fill` in place of its `*` (e.g. model.* -> model.lp)."""
        return self.name.replace("*", fill)


def write_table(path: Path, table) -> None:
    """Write a pyarrow Table as a Parquet file with pyarrow's default settings (snappy, dictionary encoding):
    every stage table is written so, and a reader needs no other setting."""
    import pyarrow.parquet as pq

    pq.write_table(table, path)


def read_table(path: Path):
    """A Parquet file as a pyarrow Table, read as a regular file only (a FIFO would block pyarrow's open);
    through ParquetFile, as pyarrow's read_table imports pyarrow.dataset (0.3 s)."""
    import pyarrow.parquet as pq

    from pipeline.runtime.files import check_regular

    check_regular(path)
    return pq.ParquetFile(path).read()


def write_json(path: Path, body, indent: int | None = 2) -> None:
    """Write a JSON document as the stages do: `indent` spaces (2 for summaries, 1 for the large certificates and
    verdicts, 0 for lists of sets), then a newline."""
    path.write_text(json.dumps(body, indent=indent) + "\n")


# ---- every artifact -------------------------------------------------------------------------------------------

STAGE_LOG = Output("stage.log", "the stage's log lines, written by the runner (pipeline/stages/runner.py)")

# ---- a proof's game: prove, leaderboard, blindfold ------------------------------------------------------------

STORED_GAME = Output("game.json.gz", "the game the result is of, so its check needs nothing else: rules, the "
                                     "lists written out (guesses, secrets, excluded) with counts and sorted-sha256, "
                                     "the list files' paths and sha256, versions (pipeline/artifacts/stored_game.py; "
                                     "read by the checker's pipeline/proofs/game/stored_game.py)")

# ---- feedback --------------------------------------------------------------------------------------------------

MATRIX = Output("matrix.parquet", "one row per guess: `codes`, FixedSizeBinary of the |S| codes in the dtype; schema "
                                  "metadata `pipeline.matrix`: dtype, shape, code_convention, crc32, guesses_sha256, "
                                  "secrets_sha256, alphabet, game, length (pipeline/feedback/parquet.py)")
GUESSES = Output("guesses.txt", "the allowed guesses G, one a line, in the game's order")
SECRETS = Output("secrets.txt", "the secrets S, one a line, in the game's order")
FEEDBACK = (MATRIX, GUESSES, SECRETS)

# ---- heuristics ------------------------------------------------------------------------------------------------

VALUATIONS = Output("valuations.parquet", "one row per valuation combination, best first: valuation, total (null: "
                                          "infeasible), feasible, tree_total, expected, max_guesses, opener")
HEURISTICS = (VALUATIONS,)

# ---- upper_bound -----------------------------------------------------------------------------------------------

OPENER_TOTALS = Output("openers.parquet", "one row per opener tried: opener, total (null: no strategy within the "
                                          "guess limit), max_guesses (objective max_then_total only), "
                                          "widest_breadth (widened runs only), rank")
UB_SUMMARY = Output("summary.json", "ub, objective, opener, method, breadth, ranking, openers_tried, apmintotal_best, "
                                    "exact (opener, total), expected, max_guesses, distribution, memo, "
                                    "openers_infeasible, game, guesses_sha256, secrets_sha256, hard_mode, "
                                    "game_max_guesses (checked by pipeline/artifacts/summaries.py); `feasible` "
                                    "false and ub null when no opener has a strategy within the guess limit; "
                                    "`widened` when no opener met the guess limit at breadth: the wider "
                                    "breadths, the openers searched with them, and the classes of the best "
                                    "opener each solved")
TREE = Output("tree.json", "the tree with the game's name, lists' digests and rules, its total, max_guesses and "
                           "distribution (pipeline/artifacts/trees.py)")
TREE_TEXT = Output("tree.txt", "the tree as text, one line per secret")
TREE_PICTURE = Output("tree.svg", "the tree's first levels drawn (pipeline/artifacts/tree_svg.py)")


def unless_infeasible(output: Output) -> Output:
    """A tree file that a run whose guess limit has no strategy does not write."""
    return replace(output, always=False, holds=f"{output.holds}; absent when no strategy meets the guess limit")


UPPER_BOUND = (OPENER_TOTALS, UB_SUMMARY, *map(unless_infeasible, (TREE, TREE_TEXT, TREE_PICTURE)))

# ---- lower_bound -----------------------------------------------------------------------------------------------

FUNNEL = Output("funnel.parquet", "one row per opener and level: opener, level, rule, value, exact, eliminated")
LB_SUMMARY = Output("summary.json", "ub, k_s, funnel (level, rule, survivors), survivors, survivor_values, levels, "
                                    "(ub null and no levels when no strategy meets the guess limit), guesses_sha256, "
                                    "secrets_sha256, the symmetry used; note when nothing survives "
                                    "(checked by pipeline/artifacts/summaries.py)")
LOWER_BOUND = (FUNNEL, LB_SUMMARY)

# ---- prove -----------------------------------------------------------------------------------------------------

CERTIFICATE = Output("certificate.json", "the proof's claim for the checker: objective, ub, ub_opener, the UB tree's "
                                         "digest, eliminated openers, survivors with per-class bounds, proven, "
                                         "optimal_openers; or (kind infeasible) a witness class per opener "
                                         "(schema: pipeline/proofs/certificates/schema.py)")
PROOF_TREE_TEXT = Output("tree.txt", "the better tree as text, when an opener beat the upper bound's", always=False)
PROVE = (CERTIFICATE, unless_infeasible(TREE), PROOF_TREE_TEXT, unless_infeasible(TREE_PICTURE), STORED_GAME)

# ---- exact -----------------------------------------------------------------------------------------------------

EXACT = Output("exact.parquet", "one row per opener: opener, objective, total (null: infeasible), expected, "
                                "max_guesses")
OPENER_TREES = (Output("tree-*.json", "each feasible opener's optimal tree (trees.tree_name, trees.tree_path)",
                       always=False),
                Output("tree-*.txt", "the same trees as text", always=False),
                Output("tree-*.svg", "the same trees' first levels drawn", always=False))
EXACT_OUTPUTS = (EXACT, *OPENER_TREES)

# ---- openers ---------------------------------------------------------------------------------------------------

OPENER_RANKING = Output("openers.parquet", "every guess, best first by information: opener, avg_remaining, "
                                           "avg_bits, parts, largest, is_secret")
OPENER_RANKING_PICTURE = Output("openers.png", "the top openers' information below the best one")
OPENERS = (OPENER_RANKING, OPENER_RANKING_PICTURE)

# ---- simulate --------------------------------------------------------------------------------------------------

SIMULATED = Output("simulate.parquet", "one row per strategy and seed (a pooled row with seed null): strategy, seed, "
                                       "runs, candidates, opener, secrets, mean, ci_low, ci_high, sd, max, total, "
                                       "failures, distribution (JSON text: guesses -> games)")
PER_SECRET = Output("per_secret.parquet", "strategy, seed, secret, guesses (0 = failure), path (comma-separated "
                                          "guesses)")
SIMULATE = (SIMULATED, PER_SECRET)

# ---- blindfold -------------------------------------------------------------------------------------------------

SOLUTION = Output("solution.json", "the set cover's result (f_star, guesses, lower_bound, proven_optimal, rounds, "
                                   "pairs, ...), a check's (check, separates_all, unseparated_classes) or a hybrid's "
                                   "(mode, status, fixed, depth, worst_case, ...)")
PAIRS = Output("pairs.parquet", "the secret pairs the cover separates: i, j, secret_i, secret_j", always=False)
MODEL = Output("model.*", "the last relaxation as stage.model_format (lp or mps), when a model was built",
               always=False)
OBSTACLES = Output("obstacles.json", "the hybrid decision's minimal unsolvable sets of secrets", always=False)
CUBES = Output("cubes-k*.json", "stage.method=cubes: whether k fixed guesses separate every pair (status, chosen), "
                                "the pool of pairs, the rules, and every cube of the split (id, fixed, excluded, "
                                "left, outcome, lp, branch, mip)", always=False)
BLINDFOLD = (SOLUTION, PAIRS, MODEL, OBSTACLES, CUBES, STORED_GAME)

# ---- report ----------------------------------------------------------------------------------------------------

REPORT = Output("report.md", "the report's sections, verdicts and missing artifacts")
REPORT_TREE = Output("tree.svg", "the best tree's first levels (Figure 2), when the store has a tree",
                     always=False)
FUNNEL_PLOT = Output("funnel.png", "openers left per funnel level", always=False)
DISTRIBUTION_PLOT = Output("tree_distribution.png", "secrets per number of guesses in the best tree", always=False)
OPENER_TOTALS_PLOT = Output("opener_totals.png", "each opener's total above the best", always=False)
SIMULATED_PLOT = Output("simulated_distribution.png", "simulated games per number of guesses", always=False)
OPENER_INFORMATION_PLOT = Output("opener_information.png", "the best openers' information below the best",
                                 always=False)
REPORT_OUTPUTS = (REPORT, REPORT_TREE, FUNNEL_PLOT, DISTRIBUTION_PLOT, OPENER_TOTALS_PLOT, SIMULATED_PLOT,
                  OPENER_INFORMATION_PLOT)

# ---- reproduce -------------------------------------------------------------------------------------------------

VERDICTS = Output("reproduce.json", "counts (pass, fail, not run) and rows: one verdict per published figure (id, "
                                    "group, stage, game, published, computed, verdict, game_identity, ...)")
VERDICT_TABLE = Output("reproduce.md", "the verdicts as a Markdown table")
REPRODUCE = (VERDICTS, VERDICT_TABLE)

# ---- leaderboard -----------------------------------------------------------------------------------------------

LEADERBOARD_CERTIFICATE = Output("certificate.json", "kind leaderboard: objective, the game's claims, k_s, k, "
                                                     "threshold, ties, leaders (each with its tree file, tree_sha256 "
                                                     "and per-class bounds), settled, eliminated (checked by "
                                                     "pipeline/proofs/certificates/leaderboard.py)")
LEADERBOARD_SUMMARY = Output("summary.json", "k, threshold, ties, leaders (opener, value), first_threshold, "
                                             "funnel_threshold, funnel, funnel_survivors, solved, rounds, hard_mode")
LEADERBOARD = (LEADERBOARD_CERTIFICATE, LEADERBOARD_SUMMARY, *OPENER_TREES, STORED_GAME)

# ---- catalogue -------------------------------------------------------------------------------------------------

CATALOGUE_JSON = Output("catalogue.json", "counts (results, verified, certificates, unreadable), rows (one per game, "
                                          "mode and guess limit: the shown certificate's optimum, average, worst "
                                          "case, optimal openers, funnel, sha256, verification, relative links; the "
                                          "others), unreadable (folder, problem): pipeline/artifacts/catalogue.py")
CATALOGUE_TABLE = Output("catalogue.md", "the rows as a Markdown table, then the other and the unreadable "
                                         "certificates")
CATALOGUE_PAGE = Output("index.html", "the rows as a static HTML table (no script), links relative to this folder")
CATALOGUE_EXPLORERS = Output("explore-*.html", "each row's tree (its shown certificate's) as one self-contained page "
                                               "to explore: pipeline/artifacts/tree_explorer.py", always=False)
CATALOGUE = (CATALOGUE_JSON, CATALOGUE_TABLE, CATALOGUE_PAGE, CATALOGUE_EXPLORERS)

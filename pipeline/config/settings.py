"""Structured config schemas: a misspelt key or a wrong type fails at compose time.

These dataclasses are the one source of every setting's type, default and help line (`setting`); the YAML
files under conf/ only choose values (a game's lists, a recipe's settings) and name the schema they fill.
`python -m pipeline list stage=<name>` prints a schema's settings (pipeline/config/suggest.py).  Stage schemas
live in pipeline/config/stages.py.
"""

import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from omegaconf import MISSING, OmegaConf

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def setting(default, help: str, sizing: bool = False):
    """A schema field with its default and its one-line help (read by `python -m pipeline list`); a list
    default is copied for every instance.  `sizing`: the setting only splits the work into tasks, never
    changes a result, so it stays out of the artifact's key (a test holds the stage to that)."""
    metadata = {"help": help, "sizing": sizing}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def help_of(item) -> str:
    """The help line of a dataclass field ("" when it has none)."""
    return item.metadata.get("help", "")


@dataclass
class WordListConfig:
    path: str = setting("", "the list's file, one word a line")
    sha256: str = setting("", "expected sorted-sha256; \"\" = not pinned (user-supplied lists)")
    count: int = setting(0, "expected number of words; 0 = not pinned")
    url: str = setting("", "where `python -m pipeline data fetch <game>` downloads the list from "
                           "(\"\" = not fetchable)")


@dataclass
class GameConfig:
    name: str = setting(MISSING, "the game's name (its conf/game/<name>.yaml; 1 to 64 letters, digits, _ or -)")
    source: str = setting("lists", "lists | primes | nerdle | mastermind | bulls_and_cows")
    answer: str = setting("wordle", "the answering function: wordle | mastermind | bulls_and_cows")
    length: int = setting(5, "symbols per word")
    alphabet: str = setting(LETTERS, "the symbols a word may use")
    secrets: WordListConfig = field(default_factory=WordListConfig, metadata={"help": "the secrets' list"})
    guesses: WordListConfig = field(default_factory=WordListConfig,
                                    metadata={"help": "the allowed guesses' list (no path: the secrets)"})
    secrets_are_guesses: bool = setting(False, "every allowed word may be the secret (S = G)")
    keep_matching_only: bool = setting(False, "drop lines that are not `length` symbols of the alphabet")
    hard_mode: bool = setting(False, "Wordle's hard mode: every guess keeps the hints revealed so far")
    max_guesses: int | None = setting(6, "a secret must be found within this many guesses; null = unlimited")
    missing_hint: str = setting("", "said when a list file is missing")
    exclude: str = setting("", "file of answers already used: removed from the secrets (not the guesses); "
                               "\"\" = none")
    pegs: int = setting(4, "source=mastermind: code length")
    colours: int = setting(6, "source=mastermind: colours, written as the digits 1..colours")

    def __post_init__(self):
        """A name and a guess limit the independent checker accepts in a certificate (pipeline/proofs/certificates/schema.py),
        checked once, when the config is composed: a run never writes a certificate its own checker refuses."""
        from pipeline import PipelineError, shown_value
        from pipeline.proofs.certificates.schema import MAX_GUESSES, NAME, NAME_RULE

        if self.name != MISSING and not NAME.match(self.name):  # MISSING: the schema's own listing (`list game`)
            raise PipelineError(f"game.name={shown_value(self.name)}: a game's name is {NAME_RULE}")
        limit = self.max_guesses
        if limit is not None and not 1 <= limit <= MAX_GUESSES:
            raise PipelineError(f"game.max_guesses must be between 1 and {MAX_GUESSES} (or null = unlimited), "
                                f"got {limit}")


@dataclass
class RayConfig:
    address: str = setting("local", "local = Ray embedded in this process; auto or host:port joins a cluster "
                                    "(ray start --head ...)")
    num_cpus: int | None = setting(None, "embedded only; null = every core")
    object_store_memory: int | None = setting(None, "embedded only: bytes of Ray's object store; null = Ray's "
                                                    "default")
    max_retries: int = setting(3, "times a failed task is retried")
    max_in_flight: int | None = setting(None, "tasks submitted at a time; null = twice the cluster's task slots "
                                              "(ray.cluster_resources() CPUs)")
    task_memory_mb: int | None = setting(512, "memory each Ray task declares to the scheduler (exact-search memo "
                                              "tables, per-task copies), in MB; a node runs no more tasks than "
                                              "its memory allows; null = declare none")
    executor: str = setting("auto", "auto: a single task, or small work while no Ray session is open, runs in "
                                    "this process (no Ray start-up) | local: every fan-out in this process | "
                                    "ray: always Ray tasks; a cluster address always means Ray")

    def __post_init__(self):
        from pipeline import PipelineError

        if self.executor not in ("auto", "local", "ray"):
            raise PipelineError(f"ray.executor must be auto, local or ray, not {self.executor!r}")
        if self.executor == "local" and self.address != "local":
            raise PipelineError(f"ray.executor=local runs in this process: it cannot use ray.address={self.address}")


@dataclass
class PathsConfig:
    """Where things live; relative paths are taken from the directory you run in."""

    data: str = setting("${package_dir:data}", "the shipped lists: data/ of the checkout, or pipeline/data of "
                                               "an installed copy")
    outputs: str = setting("${oc.env:PIPELINE_OUTPUTS,outputs}", "the artifact root: ./outputs of the directory "
                           "you run in (never inside the installed package), or $PIPELINE_OUTPUTS (the image)")
    shared_data: str = setting("${user_data_dir:}", "lists the project may not ship (FFXIVrdle): "
                               "$PIPELINE_SHARED_DATA, else $XDG_DATA_HOME/pipeline (~/.local/share/pipeline); "
                               "`python -m pipeline data fetch ffxivrdle` fills it")


@dataclass
class SweepConfig:
    max_parallel: int | None = setting(None, "-m sweeps: points run at once; null = the cluster's CPUs (re-read "
                                             "as points end)")

    def __post_init__(self):
        """Checked when any config is composed, a single run's too (where it is unused), not only a sweep's."""
        from pipeline import PipelineError

        if self.max_parallel is not None and self.max_parallel < 1:
            raise PipelineError(f"sweep.max_parallel must be at least 1 (or null: the cluster's CPUs), got "
                                f"{self.max_parallel}")


@dataclass
class Config:
    game: GameConfig = MISSING
    stage: Any = MISSING
    ray: RayConfig = MISSING
    paths: PathsConfig = MISSING
    upstream: Any = MISSING  # config of stages run as inputs (schema: pipeline.config.stages.upstream_schema)
    progress: bool = setting(True, "progress lines on a TTY")
    sweep: SweepConfig = field(default_factory=SweepConfig, metadata={"help": "settings of a -m sweep as a whole"})


PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the source checkout (meaningless in an installed copy)


def package_dir(name: str) -> Path:
    """`conf` or `data`: pipeline/<name> in an installed copy (package data), else <checkout>/<name>.

    pyproject.toml maps the top-level conf/ and data/ into the package when it is built, so a regular
    install has them inside the package; an editable install or a plain checkout has them beside it."""
    installed = Path(str(resources.files("pipeline"))) / name
    return installed if installed.is_dir() else PROJECT_ROOT / name


def user_data_dir() -> Path:
    """Where lists the project may not ship are kept: $PIPELINE_SHARED_DATA, else the user's data folder
    ($XDG_DATA_HOME/pipeline, by default ~/.local/share/pipeline)."""
    if os.environ.get("PIPELINE_SHARED_DATA"):
        return Path(os.environ["PIPELINE_SHARED_DATA"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "pipeline"


CONF_DIR = package_dir("conf")
DATA_DIR = package_dir("data")

for _name, _resolver in {"package_dir": lambda name: str(package_dir(name)),
                         "user_data_dir": lambda: str(user_data_dir())}.items():
    if not OmegaConf.has_resolver(_name):
        OmegaConf.register_new_resolver(_name, _resolver)

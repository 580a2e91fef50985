"""Structured config schemas: a misspelt key or a wrong type fails at compose time.

The YAML files under conf/ choose values; these dataclasses say which keys
exist and what type each has.  Stage schemas live beside their stages.
"""

import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from omegaconf import MISSING, OmegaConf

LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass
class WordListConfig:
    path: str = ""
    sha256: str = ""  # expected sorted-sha256; "" = not pinned (user-supplied lists)
    count: int = 0  # expected number of words; 0 = not pinned
    url: str = ""  # where `python -m pipeline data fetch <game>` downloads the list from ("" = not fetchable)


@dataclass
class GameConfig:
    name: str = MISSING
    source: str = "lists"  # lists | primes | nerdle | mastermind | bulls_and_cows
    answer: str = "wordle"  # the answering function: wordle | mastermind | bulls_and_cows
    length: int = 5
    alphabet: str = LETTERS
    secrets: WordListConfig = field(default_factory=WordListConfig)
    guesses: WordListConfig = field(default_factory=WordListConfig)
    secrets_are_guesses: bool = False  # every allowed word may be the secret (S = G)
    keep_matching_only: bool = False  # drop lines that are not `length` symbols of the alphabet
    hard_mode: bool = False
    max_guesses: int | None = 6  # a secret must be found within this many guesses; null = unlimited
    missing_hint: str = ""  # said when a list file is missing
    exclude: str = ""  # file of answers already used: removed from the secrets (not the guesses); "" = none
    pegs: int = 4  # source=mastermind: code length
    colours: int = 6  # source=mastermind: colours, written as the digits 1..colours


@dataclass
class RayConfig:
    address: str = "local"  # local = embedded; auto or host:port joins a cluster
    num_cpus: int | None = None  # embedded only; None = all cores
    object_store_memory: int | None = None
    max_retries: int = 3
    max_in_flight: int | None = None  # tasks submitted at a time; None = twice the cluster's task slots
    task_memory_mb: int | None = 512  # memory each Ray task declares (memo tables, per-task copies); None = none
    executor: str = "auto"  # auto: small work in this process, the rest on Ray | local: in-process | ray

    def __post_init__(self):
        from pipeline.errors import PipelineError

        if self.executor not in ("auto", "local", "ray"):
            raise PipelineError(f"ray.executor must be auto, local or ray, not {self.executor!r}")
        if self.executor == "local" and self.address != "local":
            raise PipelineError(f"ray.executor=local runs in this process: it cannot use ray.address={self.address}")


@dataclass
class PathsConfig:
    data: str = MISSING  # the shipped word lists
    outputs: str = MISSING  # artifact root
    shared_data: str = MISSING  # lists the project may not ship (FFXIVrdle), fetched by `data fetch`


@dataclass
class Config:
    game: GameConfig = MISSING
    stage: Any = MISSING
    ray: RayConfig = MISSING
    paths: PathsConfig = MISSING
    upstream: Any = MISSING  # config of stages run as inputs (schema: pipeline.stages.upstream_schema)
    progress: bool = True  # progress lines on a TTY


PROJECT_ROOT = Path(__file__).resolve().parents[1]  # the source checkout (meaningless in an installed copy)


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

"""Structured config schemas: a misspelt key or a wrong type fails at compose time.

The YAML files under conf/ choose values; these dataclasses say which keys
exist and what type each has.  Stage schemas live beside their stages.
"""

from dataclasses import dataclass, field
from typing import Any

from pathlib import Path

from omegaconf import MISSING, OmegaConf

LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass
class WordListConfig:
    path: str = ""
    sha256: str = ""  # expected sorted-sha256; "" = not pinned (user-supplied lists)
    count: int = 0  # expected number of words; 0 = not pinned


@dataclass
class GameConfig:
    name: str = MISSING
    source: str = "lists"  # lists | primes | nerdle
    length: int = 5
    alphabet: str = LETTERS
    secrets: WordListConfig = field(default_factory=WordListConfig)
    guesses: WordListConfig = field(default_factory=WordListConfig)
    secrets_are_guesses: bool = False  # every allowed word may be the secret (S = G)
    keep_matching_only: bool = False  # drop lines that are not `length` symbols of the alphabet
    hard_mode: bool = False
    max_guesses: int | None = 6  # a secret must be found within this many guesses; null = unlimited
    missing_hint: str = ""  # said when a list file is missing


@dataclass
class RayConfig:
    address: str = "local"  # local = embedded; auto or host:port joins a cluster
    num_cpus: int | None = None  # embedded only; None = all cores
    object_store_memory: int | None = None
    max_retries: int = 3
    max_in_flight: int = 16


@dataclass
class PathsConfig:
    root: str = MISSING
    data: str = MISSING
    outputs: str = MISSING
    shared_data: str = MISSING


@dataclass
class Config:
    game: GameConfig = MISSING
    stage: Any = MISSING
    ray: RayConfig = MISSING
    paths: PathsConfig = MISSING
    upstream: Any = MISSING  # config of stages run as inputs (schema: pipeline.stages.upstream_schema)
    progress: bool = True  # progress lines on a TTY


PROJECT_ROOT = Path(__file__).resolve().parents[1]
if not OmegaConf.has_resolver("project_root"):
    OmegaConf.register_new_resolver("project_root", lambda: str(PROJECT_ROOT))

"""The catalogue as one sweep: conf/experiment/ holds one experiment per committed proof, named as its archive
(`catalogue_<archive>` with `-` written `_`, as a config group's option is a plain name), so
`python -m pipeline -m experiment=catalogue_<row>,catalogue_<row>,...` re-proves the rows (all of them:
docs/catalogue.md) and `stage=catalogue` gathers them.  Each row's experiment is the command catalogue/README.md
gives for it, composed the same, and proves the archive's game, mode and guess limit."""

import shlex
from dataclasses import asdict
from pathlib import Path

import pytest

from pipeline.app.sweep import MAX_POINTS
from pipeline.config.compose import compose_config, sweep_points
from pipeline.config.overrides import check_routes
from pipeline.config.settings import CONF_DIR
from tests.test_committed_catalogue import ARCHIVES, FOLDER, contents

EXPERIMENTS = Path(CONF_DIR) / "experiment"
PREFIX = "catalogue_"


def row_experiment(archive: Path) -> str:
    """The experiment that re-proves an archive: catalogue/wordle_original-hard-g5.tar.gz's is
    catalogue_wordle_original_hard_g5."""
    return PREFIX + archive.name.removesuffix(".tar.gz").replace("-", "_")


def readme_commands() -> dict[str, str]:
    """catalogue/README.md's table: archive file name -> the `python -m pipeline` arguments of its row."""
    commands = {}
    for line in (FOLDER / "README.md").read_text().splitlines():
        if line.startswith("| [") and ".tar.gz](" in line:
            name = line[3:line.index("](")]
            commands[name] = line.rstrip(" |").rsplit("| `", 1)[1].split("`")[0]
    return commands


def test_every_committed_proof_has_one_row_experiment_and_no_row_experiment_lacks_a_proof():
    rows = sorted(p.stem for p in EXPERIMENTS.glob(f"{PREFIX}*.yaml"))
    assert rows == sorted(row_experiment(archive) for archive in ARCHIVES)
    assert len(rows) == len(ARCHIVES) == len(readme_commands())


@pytest.mark.slow
@pytest.mark.parametrize("archive", ARCHIVES, ids=lambda p: p.name.removesuffix(".tar.gz"))
def test_a_row_experiment_is_its_readme_command_and_proves_the_archives_game(archive):
    row = compose_config([f"experiment={row_experiment(archive)}"])
    readme = compose_config(shlex.split(readme_commands()[archive.name]))
    assert asdict(row) == asdict(readme)  # field by field: each composition makes its own upstream class
    game = contents(archive)[0]["game"]
    assert (row.game.name, row.game.hard_mode, row.game.max_guesses) == (
        game["name"], game["hard_mode"], game["max_guesses"])
    assert type(row.stage).__name__ == "ProveConfig"


def test_the_whole_table_is_one_sweep_the_command_line_takes_of_one_point_per_row():
    """The sweep's line passes the checks a `-m` command line gets (a group's options are plain names) and splits
    into one point per row, each composing to its row's experiment."""
    names = sorted(row_experiment(archive) for archive in ARCHIVES)
    line = ["experiment=" + ",".join(names), "ray.address=auto"]
    check_routes(line)
    points = sweep_points(line, limit=MAX_POINTS)
    assert points == [[f"experiment={name}", "ray.address=auto"] for name in names]
    first = compose_config(points[0])
    assert (first.ray.address, first.game.name) == ("auto", "bulls_and_cows")

"""`python -m pipeline --help` and `python -m pipeline list`: every sub-command, stage, game and experiment,
read from the code and conf/ (not from a copy that could drift)."""

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.app.commands import COMMANDS
from pipeline.config.settings import CONF_DIR, PROJECT_ROOT
from pipeline.config.stages import SCHEMAS
from test_bad_input import assert_one_error, run_main

GAMES = sorted(p.stem for p in (Path(CONF_DIR) / "game").glob("*.yaml"))
EXPERIMENTS = sorted(p.stem for p in (Path(CONF_DIR) / "experiment").glob("*.yaml"))


def test_help_shows_the_sub_commands_stages_games_and_experiments(capsys):
    code, out, err = run_main(["--help"], capsys)
    assert code == 0 and err == ""
    for command in COMMANDS:
        assert f"python -m pipeline {command}" in out
    named = {line.split(":", 1)[0]: line.split(":", 1)[1].strip().split(", ") for line in out.splitlines()
             if line.startswith(("stages:", "games:", "experiments:"))}
    assert named == {"stages": list(SCHEMAS), "games": GAMES, "experiments": EXPERIMENTS}


def test_list_describes_every_stage_game_and_experiment(capsys):
    code, out, err = run_main(["list"], capsys)
    assert code == 0 and err == ""
    sections = {block.splitlines()[0]: block.splitlines()[1:] for block in out.strip().split("\n\n")}
    assert list(sections) == ["stages (stage=<name>):", "games (game=<name>):", "experiments (experiment=<name>):"]
    rows = {title: {ln.split()[0]: ln.split(None, 1)[1] for ln in lines} for title, lines in sections.items()}
    assert list(rows["stages (stage=<name>):"]) == list(SCHEMAS)  # the pipeline's order
    assert sorted(rows["games (game=<name>):"]) == GAMES
    assert sorted(rows["experiments (experiment=<name>):"]) == EXPERIMENTS
    assert rows["stages (stage=<name>):"]["feedback"] == "The |G| x |S| code matrix as Parquet."
    assert rows["games (game=<name>):"]["primel"] == ("Primel: every 5-digit prime is both a secret and an allowed "
                                                      "guess (generated).")
    assert rows["stages (stage=<name>):"]["exact"].startswith("Exact V*(opener, S) with an optimal tree, e.g. ")
    assert all(len(d) <= 100 for section in rows.values() for d in section.values())


def test_a_description_is_the_first_sentence_of_the_leading_comment(tmp_path):
    from pipeline.config.suggest import describe_yaml

    conf = tmp_path / "x.yaml"
    conf.write_text("# @package _global_\n# Two lines, i.e. one sentence\n# that ends here. Not this.\n"
                    "#   python -m pipeline example\nname: x\n")
    assert describe_yaml(conf) == "Two lines, i.e. one sentence that ends here."
    conf.write_text("# " + "word " * 40 + "\nname: x\n")
    assert describe_yaml(conf, width=30) == "word word word word word…"
    conf.write_text("name: x\n")
    assert describe_yaml(conf) == ""


def test_list_takes_a_stage_or_a_settings_section_only(capsys):
    code, _, err = run_main(["list", "games"], capsys)
    assert_one_error(code, err, "list takes no argument, or one of stage=<name>, game, ray, paths; unexpected: "
                                "games (did you mean game?)")
    code, _, err = run_main(["list", "stage=uper_bound"], capsys)
    assert_one_error(code, err, "unknown stage 'uper_bound' (did you mean upper_bound or lower_bound?)")
    code, _, err = run_main(["list", "ray", "paths"], capsys)
    assert_one_error(code, err, "list takes at most one argument")


def test_list_has_its_own_help(capsys):
    code, out, err = run_main(["list", "--help"], capsys)
    assert code == 0 and err == "" and out.startswith("usage: python -m pipeline list")


@pytest.mark.parametrize("word,expected", [("paly", "play"), ("slove", "solve"), ("lsit", "list"),
                                           ("anlayse", "analyse"), ("dat", "data")])
def test_did_you_mean_finds_the_sub_command(word, expected):
    from pipeline.config.suggest import did_you_mean

    assert did_you_mean(word, COMMANDS).startswith(f" (did you mean {expected}")
    assert did_you_mean("zzzz", COMMANDS) == ""


def test_the_real_command_prints_the_listing():
    proc = subprocess.run([sys.executable, "-m", "pipeline", "list"], capture_output=True, text=True,
                          cwd=PROJECT_ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines()[0] == "stages (stage=<name>):"


def test_a_group_name_alone_asks_for_its_value(capsys):
    code, _, err = run_main(["stage"], capsys)
    assert_one_error(code, err, "stage needs a value: stage=<name>")
    code, _, err = run_main(["stgae"], capsys)
    assert_one_error(code, err, "unknown command 'stgae' (did you mean stage=<name> or game=<name>?)")

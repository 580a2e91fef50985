"""Upper bound, funnel, exact search and proof end to end on Mini Nerdle and FFXIVrdle (real embedded Ray).

FFXIVrdle's lists are not shipped: its tests (the paper's 432 with RAISE) are marked needs_ffxivrdle and
skipped, saying why, without them; everything else runs on Mini Nerdle, which is generated."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from pipeline import PipelineError
from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.apmintotal.value import ApSearch
from pipeline.search.matrix import Matrix
from pipeline.search.tree import from_json
from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate
from pipeline.artifacts.trees import tree_path
from tests.test_tree_svg import drawn


def prove(game_name, outputs):
    """Run the whole proof (experiment=prove_wordle) for a game; returns (artifact, game, outputs)."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "experiment=prove_wordle",
                             f"game={game_name}"])
    game = load_game(cfg.game)
    artifact = run_stage(cfg.stage, cfg, game, ArtifactStore(outputs))
    return artifact, game, outputs


@pytest.fixture(scope="module")
def ffxiv_proof(tmp_path_factory, ray_session):
    """The whole proof for FFXIVrdle, once for this module."""
    return prove("ffxivrdle", tmp_path_factory.mktemp("outputs"))


@pytest.fixture(scope="module")
def mini_proof(tmp_path_factory, ray_session):
    """The whole proof for Mini Nerdle, once for this module."""
    return prove("mini_nerdle", tmp_path_factory.mktemp("outputs"))


@pytest.mark.needs_ffxivrdle
def test_upper_bound_ffxivrdle_432_raise(ffxiv_proof):
    _, _, outputs = ffxiv_proof
    folder = next((outputs / "upper_bound").glob("[!.]*"))
    summary = json.loads((folder / "summary.json").read_text())
    assert (summary["ub"], summary["opener"], summary["breadth"]) == (432, "raise", 10)
    assert sum(summary["distribution"].values()) == 168
    openers = pq.read_table(folder / "openers.parquet").to_pylist()
    assert len(openers) == 10 and min(r["total"] for r in openers) == 432
    assert (folder / "tree.txt").read_text().count("\n") == 168


@pytest.mark.needs_ffxivrdle
def test_funnel_and_certificate_for_ffxivrdle(ffxiv_proof):
    artifact, game, _ = ffxiv_proof
    cert = json.loads(artifact.file("certificate.json").read_text())
    assert cert["proven"] is True and cert["ub"] == 432 and cert["optimal_openers"] == ["raise"]
    assert len(cert["eliminated"]) == 848 and max(e["level"] for e in cert["eliminated"]) <= 3
    survivor = cert["survivors"][0]
    assert 168 + sum(c["bound"] for c in survivor["classes"]) == 432
    result = verify_certificate(artifact.path, game)
    assert result["complete"] and result["ub"] == 432 and result["openers_rederived"] == 848
    assert result["classes_rederived"] == len(survivor["classes"])


def test_tampered_certificate_is_rejected(mini_proof, tmp_path):
    artifact, game, _ = mini_proof

    def tampered(edit):
        folder = tmp_path / f"t{len(list(tmp_path.iterdir()))}"
        shutil.copytree(artifact.path, folder)
        cert = json.loads((folder / "certificate.json").read_text())
        edit(cert)
        (folder / "certificate.json").write_text(json.dumps(cert))
        return folder

    def move_one_guess_between_classes(cert):  # the sums still close; only re-derivation notices
        classes = cert["survivors"][0]["classes"]
        classes[0]["bound"] += 1
        classes[1]["bound"] -= 1

    cases = {
        "sum of class bounds": lambda c: c["survivors"][0].__setitem__("value", 543),
        "re-derived": move_one_guess_between_classes,
        "not exactly the allowed guesses": lambda c: c["eliminated"].pop(),
        "does not exceed ub": lambda c: c["eliminated"][0].__setitem__("bound", 544),
        "tree.json digest": lambda c: c.__setitem__("ub_tree_sha256", "0" * 64),
    }
    for where, edit in cases.items():
        with pytest.raises(CertificateError, match=where):
            verify_certificate(tampered(edit), game)


def test_verify_certificate_command_fails_with_one_line(mini_proof, tmp_path):
    artifact, _, _ = mini_proof
    folder = tmp_path / "bad"
    shutil.copytree(artifact.path, folder)
    (folder / "certificate.json").write_text("{not json")
    proc = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(folder)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "certificate rejected" in proc.stderr


def shown_nodes(tree, depth: int) -> int:
    """How many of the tree's nodes its picture draws to `depth` (the rest are in "+N more" boxes)."""
    from pipeline.artifacts.tree_svg import shown_tree

    def count(box) -> int:
        return (box.node is not None) + sum(count(child) for child in box.children)

    return count(shown_tree(tree, depth))


def test_mini_nerdle_proof_end_to_end(mini_proof):
    artifact, game, outputs = mini_proof
    cert = json.loads(artifact.file("certificate.json").read_text())
    assert cert["proven"] and cert["ub"] == 544 and cert["optimal_openers"] == ["4*7=28"]
    assert len(cert["eliminated"]) == 205 and all(set(e) == {"opener", "level", "rule"} for e in cert["eliminated"])
    survivor = cert["survivors"][0]
    assert survivor["opener"] == "4*7=28" and 206 + sum(c["bound"] for c in survivor["classes"]) == 544
    tree = json.loads(artifact.file("tree.json").read_text())["tree"]  # drawn with the proof, default 2 levels
    assert len(drawn(artifact.file("tree.svg").read_text())) == shown_nodes(from_json(tree), 2)
    result = verify_certificate(artifact.path, game)
    assert result["complete"] and result["ub"] == 544 and result["openers_rederived"] == 205
    assert result["classes_rederived"] == len(survivor["classes"])
    quick = verify_certificate(artifact.path, game, sample=20)
    assert not quick["complete"] and quick["openers_rederived"] == 20


def test_exact_stage_matches_apmintotal_on_mini_nerdle(run_pipeline, ray_session):
    artifact = run_pipeline("stage=exact", "game=mini_nerdle", "stage.openers=['4*7=28','1+9=10']")
    rows = {r["opener"]: r for r in pq.read_table(artifact.file("exact.parquet")).to_pylist()}
    assert rows["4*7=28"]["total"] == 544
    game = builtin_game("mini_nerdle")
    codes = game_matrix(game)
    search = ApSearch(Matrix.of_game(codes, game), len(game.guesses))
    ap = search.strategy(None, game.guess_index["1+9=10"])
    assert rows["1+9=10"]["total"] == ap.total  # ApMinTotal with n = |G| is exact
    assert tree_path(artifact.path, "4*7=28").is_file() and tree_path(artifact.path, "4*7=28").parent == artifact.path


def test_upper_bound_on_ray_equals_in_process(run_pipeline, ray_session):
    artifact = run_pipeline("stage=upper_bound", "game=mini_nerdle", "stage.breadth=3", "stage.openers=all",
                            "stage.batch_size=50")
    totals = {r["opener"]: r["total"] for r in pq.read_table(artifact.file("openers.parquet")).to_pylist()}
    game = builtin_game("mini_nerdle")
    codes = game_matrix(game)
    search = ApSearch(Matrix.of_game(codes, game), 3)
    for word in ("4*7=28", "1+9=10", "9*8=72"):
        assert totals[word] == search.strategy(None, game.guess_index[word]).total
    assert json.loads(artifact.file("summary.json").read_text())["ub"] == min(totals.values())


@pytest.mark.parametrize("override,message", [
    ("stage.breadth=0", "breadth must be at least 1"),
    ("stage.openers=[zzzzz]", "not an allowed guess"),
    ("stage.openers=best", "must be ranked, all or a list"),
])
def test_upper_bound_bad_input(run_pipeline, override, message):
    with pytest.raises(PipelineError, match=message):
        run_pipeline("stage=upper_bound", "game=mini_nerdle", override)


def test_prove_refuses_when_the_ub_is_below_the_optimum(run_pipeline, ray_session, outputs):
    with pytest.raises(PipelineError, match="below the optimum"):
        run_pipeline("stage=prove", "game=mini_nerdle", "upstream.lower_bound.ub=543")
    assert not list((outputs / "prove").glob("[!.]*"))


@pytest.mark.slow
def test_a_survivor_better_than_the_upper_bound_becomes_the_bound_and_the_proof_closes(run_pipeline, ray_session):
    artifact = run_pipeline("stage=prove", "game=mini_nerdle", "upstream.upper_bound.openers=['1+9=10']",
                            "stage.tree_depth=3")
    cert = json.loads(artifact.file("certificate.json").read_text())
    game = builtin_game("mini_nerdle")
    search = ApSearch(Matrix.of_game(game_matrix(game), game), len(game.guesses))
    given = artifact.manifest["summary"]["upper_bound_given"]  # ApMinTotal's bound for 1+9=10 alone, above the optimum
    assert given["opener"] == "1+9=10" and given["ub"] > 544
    assert cert["proven"] is True and cert["ub"] == 544 and cert["optimal_openers"] == ["4*7=28"]
    assert cert["ub_opener"] == "4*7=28" and search.strategy(None, game.guess_index["4*7=28"]).total == 544
    body = json.loads(artifact.file("tree.json").read_text())
    assert body["tree"]["guess"] == "4*7=28" and body["total"] == 544  # the better opener's own optimal tree
    nodes = drawn(artifact.file("tree.svg").read_text())  # drawn to the chosen depth, from the adopted tree
    assert nodes[0].get("data-guess") == "4*7=28" and len(nodes) == shown_nodes(from_json(body["tree"]), 3)
    assert "solves exactly to 544, below the upper bound" in artifact.file("stage.log").read_text()
    result = verify_certificate(artifact.path, game)  # the independent checker accepts the adopted bound
    assert result["complete"] and result["ub"] == 544 and result["optimal_openers"] == ["4*7=28"]



def test_the_cluster_size_changes_the_split_but_no_key_and_no_byte_of_the_proof(tmp_path, monkeypatch):
    """Mini Nerdle's proof in-process as on 1 CPU and as on 16 (ray.num_cpus sizes the split when no Ray session
    is open): feedback's row blocks and prove's class tasks follow the CPUs; keys and result files do not."""
    import pipeline.runtime.executors as executors

    monkeypatch.setattr(executors, "ray_running", lambda: False)  # the suite's shared Ray session would size it
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    runs = {}
    for cpus in (1, 16):
        outputs = tmp_path / f"cpus{cpus}"
        cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "experiment=prove_wordle",
                              "game=mini_nerdle", "ray.executor=local", f"ray.num_cpus={cpus}"])
        run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(outputs))
        runs[cpus] = {stage: next((outputs / stage).glob("[!.]*")) for stage in ("feedback", "prove")}
    tasks = {cpus: {stage: [r["tasks"] for r in json.loads((folder / "manifest.json").read_text())["fan_out"]["rounds"]]
                    for stage, folder in run.items()} for cpus, run in runs.items()}
    assert tasks[1]["feedback"] == [4] and tasks[16]["feedback"] == [64]  # 206 rows: 4 blocks per CPU
    assert tasks[1]["prove"] == [16] and tasks[16]["prove"] == [74]  # 74 classes of 4*7=28: 16 tasks per CPU
    for stage in ("feedback", "prove"):
        small, big = runs[1][stage], runs[16][stage]
        assert small.name == big.name  # the same key
        for name in ("matrix.parquet", "certificate.json", "tree.json"):
            if (small / name).exists():
                assert (small / name).read_bytes() == (big / name).read_bytes(), name

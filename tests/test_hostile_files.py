"""Hostile files: a folder, a symlink loop, a FIFO, JSON nested too deep, a file over the size limit, bytes that
are not UTF-8, NaN, JSON of the wrong structure.  Every reader — the two safe readers themselves, the
commands that take a file (verify-tree, verify-certificate, solve --tree, analyse --grid) and the
artifacts stages and the report read back — answers with one `error:` line and exit status 2 within seconds,
and writes nothing.  A FIFO used to block the reader forever: every case runs under an alarm, so a
regression fails the test instead of hanging the suite.
"""

import json
import os
import shutil
import signal
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from test_bad_input import MINI, WORDS, assert_one_error, fresh_console, nothing_written, run_main  # noqa: F401

SECONDS = 30  # an alarm ends a case that blocks; a refusal takes milliseconds
HOSTILE = ["folder", "loop", "fifo", "deep", "huge", "binary", "nan", "overflow"]


@pytest.fixture(autouse=True)
def deadline():
    """Fail (not hang) a test whose reader blocks: SIGALRM raises in the main thread after SECONDS."""
    def expire(signum, frame):
        raise TimeoutError(f"still reading after {SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def make_hostile(path: Path, kind: str, limit: int = 256 * 2**20) -> Path:
    """Put a hostile `kind` of file at `path` (`limit`: the size limit a `huge` file exceeds, sparse: instant)."""
    if kind == "folder":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.truncate(limit + 1)
    elif kind == "binary":
        path.write_bytes(b'{"tree": "\xff\xfe"}')
    elif kind == "nan":
        path.write_text('{"tree": NaN}')
    elif kind == "overflow":
        path.write_text('{"tree": 1e400}')
    return path


RUNTIME_REASONS = {"folder": "is a folder, not a regular file",
                   "loop": "is a symlink loop (too many levels of symbolic links)",
                   "fifo": "is a FIFO, not a regular file",
                   "deep": "is not JSON this pipeline reads (nested more than 200 levels)",
                   "huge": "is too big (268435457 bytes; the limit is 268435456)", "binary": "is not UTF-8 text (byte 10)",
                   "nan": "is not valid JSON (NaN is not a JSON number)",
                   "overflow": "is not valid JSON (1e400 is beyond a float)"}
CHECKER_REASONS = {"folder": "not a regular file (a folder)", "loop": "cannot be opened (Too many levels of symbolic links)",
                   "fifo": "not a regular file (a FIFO)", "deep": "JSON nested more than 200 levels",
                   "huge": "268435457 bytes, more than the checker reads (268435456)", "binary": "not UTF-8 (byte 10)",
                   "nan": "not valid JSON (NaN is not a JSON number)",
                   "overflow": "not valid JSON (1e400 overflows a float)"}


# ---- the two readers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", HOSTILE)
def test_the_pipeline_reader_refuses_hostile_files(kind, tmp_path):
    from pipeline import PipelineError
    from pipeline.runtime.files import UnreadableFile, read_json

    path = make_hostile(tmp_path / "x.json", kind)
    started = time.monotonic()
    with pytest.raises(UnreadableFile) as err:
        read_json(path)
    assert isinstance(err.value, PipelineError) and err.value.path == path
    assert str(err.value) == f"{path} {RUNTIME_REASONS[kind]}" and time.monotonic() - started < 2


@pytest.mark.parametrize("kind", HOSTILE)
def test_the_checker_reader_refuses_hostile_files(kind, tmp_path):
    from pipeline import PipelineError
    from pipeline.proofs.files.reader import FileRefused, file_bytes, json_of

    path = make_hostile(tmp_path / "x.json", kind)
    with pytest.raises(FileRefused) as err:
        json_of(file_bytes(path), path)
    assert isinstance(err.value, PipelineError) and not err.value.missing
    assert str(err.value) == f"{path}: {CHECKER_REASONS[kind]}"


def test_both_readers_read_plain_json_and_a_link_to_it(tmp_path):
    from pipeline.proofs.files.reader import file_bytes, json_of
    from pipeline.runtime.files import depth, read_json

    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"a": [1, 2.5, {"b": "é"}], "n": None}))
    link = tmp_path / "link.json"
    link.symlink_to(path)
    expected = {"a": [1, 2.5, {"b": "é"}], "n": None}
    assert read_json(path) == read_json(link) == json_of(file_bytes(link), link) == expected
    assert depth(expected) == 3 and depth(5) == 0
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 200 + "]" * 200)  # exactly the limit: accepted
    assert depth(read_json(nested)) == 200 and json_of(file_bytes(nested), nested)


def test_a_missing_file_is_told_apart(tmp_path):
    from pipeline.proofs.files.reader import FileRefused, file_bytes
    from pipeline.runtime.files import MissingFile, read_json

    with pytest.raises(MissingFile, match="nowhere.json is missing"):
        read_json(tmp_path / "nowhere.json")
    with pytest.raises(FileRefused) as err:
        file_bytes(tmp_path / "nowhere.json")
    assert err.value.missing


# ---- commands that take a file -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [*HOSTILE, "list"])
def test_verify_tree_refuses_a_hostile_tree_file(kind, tmp_path, capsys):
    path = tmp_path / "tree.json"
    if kind == "list":
        path.write_text("[1, 2]")
    else:
        make_hostile(path, kind)
    started = time.monotonic()
    code, _, err = run_main(["verify-tree", str(path), "game=mini_nerdle"], capsys)
    reason = "is not a strategy tree" if kind == "list" else CHECKER_REASONS[kind]
    assert_one_error(code, err, f"{path}")
    assert reason in err and time.monotonic() - started < 10


def mini_certificate(folder: Path) -> dict:
    """The opening fields of a Mini Nerdle certificate: enough to reach the UB tree file."""
    from pipeline.games.catalog import builtin_game

    game = builtin_game("mini_nerdle")
    return {"game": "mini_nerdle", "hard_mode": False, "objective": "total", "guesses_sha256": game.guesses_digest,
            "secrets_sha256": game.secrets_digest, "n_guesses": len(game.guesses), "n_secrets": len(game.secrets),
            "ub": 544, "ub_opener": "4*7=28", "ub_tree_sha256": "0" * 64, "k_s": 0, "eliminated": [], "survivors": [],
            "optimal_openers": [], "proven": False}


@pytest.mark.parametrize("kind", HOSTILE)
def test_verify_certificate_refuses_a_hostile_certificate(kind, tmp_path, capsys):
    folder = tmp_path / "prove"
    folder.mkdir()
    from pipeline.proofs.certificates.schema import MAX_BYTES

    make_hostile(folder / "certificate.json", kind)
    code, _, err = run_main(["verify-certificate", str(folder)], capsys)
    reason = f"268435457 bytes, more than the checker reads ({MAX_BYTES})" if kind == "huge" else CHECKER_REASONS[kind]
    assert_one_error(code, err, f"certificate rejected: {folder / 'certificate.json'}: {reason}")


@pytest.mark.parametrize("kind", ["folder", "loop", "fifo", "huge"])
def test_verify_certificate_refuses_a_hostile_tree_beside_it(kind, tmp_path, capsys):
    folder = tmp_path / "prove"
    folder.mkdir()
    (folder / "certificate.json").write_text(json.dumps(mini_certificate(folder)))
    make_hostile(folder / "tree.json", kind)
    code, _, err = run_main(["verify-certificate", str(folder)], capsys)
    assert_one_error(code, err, f"the UB tree: {folder / 'tree.json'}: {CHECKER_REASONS[kind]}")


@pytest.mark.parametrize("kind", [*HOSTILE, "list"])
def test_solve_refuses_a_hostile_tree_file(kind, tmp_path, capsys):
    path = tmp_path / "tree.json"
    if kind == "list":
        path.write_text('{"tree": [1, 2]}')
    else:
        make_hostile(path, kind)
    code, _, err = run_main(["solve", *MINI, f"paths.outputs={tmp_path / 'outputs'}", "--secret", "28/7=4",
                             "--tree", str(path)], capsys)
    assert_one_error(code, err, "is not a strategy tree" if kind == "list" else f"{path} {RUNTIME_REASONS[kind]}")
    assert nothing_written(tmp_path / "outputs")


GRID_REASONS = {**RUNTIME_REASONS, "huge": "is too big (1048577 bytes; the limit is 1048576)"}


@pytest.mark.parametrize("kind", ["folder", "loop", "fifo", "huge", "binary"])
def test_analyse_refuses_a_hostile_share_grid(kind, tmp_path, capsys):
    path = make_hostile(tmp_path / "grid.txt", kind, limit=2**20)
    code, _, err = run_main(["analyse", *MINI, f"paths.outputs={tmp_path / 'outputs'}", "guesses=[28/7=4]",
                             f"grid={path}"], capsys)
    assert_one_error(code, err, f"cannot read the share grid: {path} {GRID_REASONS[kind]}")
    assert nothing_written(tmp_path / "outputs")


def test_the_assistant_skips_hostile_stored_artifacts(tmp_path):
    """A FIFO certificate or a `[]` manifest in the outputs is not used (and never blocks the assistant); a sound
    but unverified certificate beside them is read and, claiming more than the published optimum, changes nothing
    (reading verified certificates: tests/test_trust_checker.py)."""
    from pipeline.assistant.values import KnownValues
    from pipeline.games.catalog import builtin_game

    game = builtin_game("mini_nerdle")
    outputs = tmp_path / "outputs"
    fifo, listed, sound = (outputs / "prove" / key for key in ("k1", "k2", "k3"))
    for folder in (fifo, listed, sound):
        folder.mkdir(parents=True)
    for folder in (fifo, sound):
        (folder / "manifest.json").write_text(json.dumps({"game": game.identity()}))
    os.mkfifo(fifo / "certificate.json")
    (listed / "manifest.json").write_text("[]")
    claim = {"proven": True, "ub": 600, "optimal_openers": ["4*7=28"]}
    (listed / "certificate.json").write_text(json.dumps(claim))
    assert KnownValues(game, outputs).best() == KnownValues(game, None).best()  # the published 544
    (sound / "certificate.json").write_text(json.dumps(claim))
    best = KnownValues(game, outputs).best()
    assert best == KnownValues(game, None).best() and best.total == 544


def test_a_word_list_that_is_a_fifo_is_refused_at_once(tmp_path, capsys):
    fifo = tmp_path / "words.txt"
    os.mkfifo(fifo)
    code, _, err = run_main([f"paths.outputs={tmp_path / 'outputs'}", "stage=feedback", "game=words",
                             "game.length=5", f"game.secrets.path={fifo}"], capsys)
    assert_one_error(code, err, f"words secrets list {fifo} is a FIFO (never opened: it could wait for ever), not a file of words")
    assert nothing_written(tmp_path / "outputs")


# ---- artifacts read back by stages and the report ------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """feedback -> upper_bound -> lower_bound for an eight-word game, run once in this process (no Ray: the
    cases below only read what it wrote); (outputs, the overrides that select the game and executor)."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    root = tmp_path_factory.mktemp("finished")
    words = root / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    args = ["game=words", "game.length=5", f"game.secrets.path={words}", "ray.executor=local"]
    cfg = compose_config([f"paths.outputs={root / 'outputs'}", "progress=false", "stage=lower_bound", *args])
    run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs))
    return root / "outputs", args


def intact_copy(finished, tmp_path, stage: str, name: str) -> tuple[Path, list[str], Path]:
    """A copy of the finished outputs: (its folder, the game's overrides, the file `name` of `stage` in it)."""
    outputs, args = finished
    copy = tmp_path / "outputs"
    shutil.copytree(outputs, copy)
    return copy, args, next((copy / stage).glob(f"[!.]*/{name}"))


def same_size_edit(path: Path, **fields) -> None:
    """Rewrite the JSON object at `path` with `fields` changed, padded with spaces to its old size (so that the
    manifest's size check cannot notice)."""
    size = path.stat().st_size
    text = json.dumps({**json.loads(path.read_text()), **fields}, separators=(",", ":"))
    assert len(text) <= size
    path.write_text(text + " " * (size - len(text)))
    assert path.stat().st_size == size


def folder_listing(outputs: Path) -> list[str]:
    """Every path under outputs except the matrix cache (rebuilt freely) and Hydra's run folders."""
    return sorted(str(p.relative_to(outputs)) for p in outputs.rglob("*")
                  if ".cache" not in p.parts and ".runs" not in p.parts)


def run_stage_cli(outputs: Path, args: list[str], capsys, *more: str) -> tuple[int, str, str]:
    return run_main([f"paths.outputs={outputs}", "progress=false", *more, *args], capsys)


@pytest.mark.parametrize("value,why", [("x", "ub: 'x' is not a whole number"),
                                       (5e99, "ub: 5e+99 is not a whole number"),
                                       (-3, "ub: -3 is outside 8..48")])
def test_a_same_size_edit_of_a_summary_is_named_with_its_rebuild_command(value, why, finished, tmp_path, capsys):
    outputs, args, target = intact_copy(finished, tmp_path, "upper_bound", "summary.json")
    same_size_edit(target, ub=value)
    before = folder_listing(outputs)
    code, _, err = run_stage_cli(outputs, ["stage=lower_bound", "stage.force=true", *args], capsys)
    assert_one_error(code, err, f"{target} is damaged ({why}); rebuild it with upstream.upper_bound.force=true",
                     log_lines=True)
    assert folder_listing(outputs) == before  # the forced lower_bound left no half-written folder


def test_the_report_names_a_garbage_summary(finished, tmp_path, capsys):
    outputs, args, target = intact_copy(finished, tmp_path, "upper_bound", "summary.json")
    target.write_bytes(b"x" * target.stat().st_size)
    code, _, err = run_stage_cli(outputs, ["stage=report", *args], capsys)
    assert_one_error(code, err, f"{target} is damaged (JSONDecodeError); rebuild it with `python -m pipeline "
                                f"stage=upper_bound ...` and stage.force=true", log_lines=True)
    assert not (outputs / "report").exists()


def test_the_report_names_an_implausible_funnel(finished, tmp_path, capsys):
    outputs, args, target = intact_copy(finished, tmp_path, "lower_bound", "summary.json")
    same_size_edit(target, survivors=["zzzzz"])
    code, _, err = run_stage_cli(outputs, ["stage=report", *args], capsys)
    assert_one_error(code, err, f"{target} is damaged (survivors: 'zzzzz' is not a guess)", log_lines=True)
    assert not (outputs / "report").exists()


@pytest.mark.parametrize("body,why", [("[]", "a JSON list, not a dict"), ('{"files": 5}', "no list of file sizes"),
                                      ("[" * 5000 + "]" * 5000, "too deeply nested")])
def test_a_manifest_of_the_wrong_structure(body, why, finished, tmp_path, capsys):
    outputs, args, target = intact_copy(finished, tmp_path, "upper_bound", "manifest.json")
    target.write_text(body)
    code, _, err = run_stage_cli(outputs, ["stage=lower_bound", *args], capsys)
    assert_one_error(code, err, f"{target} is damaged ({why}); rebuild it with upstream.upper_bound.force=true",
                     log_lines=True)
    code, out, err = run_stage_cli(outputs, ["stage=report", *args], capsys)
    if body.startswith("{"):  # it records no game: not an artifact of this game, the report leaves it out
        assert code == 0, err
        report = Path(out.strip().splitlines()[-1]) / "report.md"
        assert "## Upper bounds" not in report.read_text() and "- upper_bound: `python -m" in report.read_text()
    else:
        assert_one_error(code, err, f"{target} is damaged ({why})", log_lines=True)
        assert not (outputs / "report").exists()


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_an_artifact_file_that_is_no_regular_file(kind, finished, tmp_path, capsys):
    outputs, args, target = intact_copy(finished, tmp_path, "upper_bound", "summary.json")
    target.unlink()
    make_hostile(target, kind)
    code, _, err = run_stage_cli(outputs, ["stage=lower_bound", *args], capsys)
    assert_one_error(code, err, f"{target} is damaged (not a regular file); rebuild it with "
                                "upstream.upper_bound.force=true", log_lines=True)


def rewrite_matrix_meta(folder: Path, meta: bytes) -> Path:
    """Replace matrix.parquet's pipeline metadata with `meta` and record the new size in the manifest (a
    consistent forgery: only reading the metadata can tell)."""
    import pyarrow.parquet as pq

    from pipeline.feedback.parquet import META_KEY

    path = folder / "matrix.parquet"
    table = pq.ParquetFile(path).read()
    pq.write_table(table.replace_schema_metadata({META_KEY: meta}), path, compression="zstd")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["matrix.parquet"] = path.stat().st_size
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return path


@pytest.mark.parametrize("meta,why", [
    (b"{not json", "its matrix metadata is not valid JSON"),
    (b'{"dtype": "uint8", "shape": [1000000000, 1000000000], "crc32": 0, "guesses_sha256": "a", '
     b'"secrets_sha256": "b"}', "declares shape [1000000000, 1000000000], more than 1099511627776 codes"),
    (b'{"dtype": "uint8", "shape": [8, -8], "crc32": 0}', "declares shape [8, -8], not two positive whole numbers"),
    (b'{"dtype": "float64", "shape": [8, 8], "crc32": 0}', "has dtype 'float64'"),
])
def test_absurd_matrix_metadata_is_named(meta, why, finished, tmp_path, capsys):
    outputs, args, target = intact_copy(finished, tmp_path, "feedback", "manifest.json")
    shutil.rmtree(target.parent / ".cache", ignore_errors=True)
    matrix = rewrite_matrix_meta(target.parent, meta)
    code, _, err = run_stage_cli(outputs, ["stage=lower_bound", "stage.force=true", *args], capsys)
    assert_one_error(code, err, f"{matrix} is damaged (", log_lines=True)
    assert why in err and err.strip().endswith("rebuild it with upstream.feedback.force=true")


def test_a_shape_that_disagrees_with_the_column_is_corrupt(finished, tmp_path):
    from pipeline import PipelineError
    from pipeline.feedback.parquet import read_matrix, read_meta

    folder = next((finished[0] / "feedback").glob("[!.]*/matrix.parquet")).parent
    copy = tmp_path / "feedback"
    shutil.copytree(folder, copy)
    meta = read_meta(copy / "matrix.parquet")
    rows, cols = meta["shape"]
    matrix = rewrite_matrix_meta(copy, json.dumps({**meta, "shape": [rows * 1000, cols]}).encode())
    with pytest.raises(PipelineError, match=rf"declares shape \[{rows * 1000}, {cols}\], its column holds {rows} rows"):
        read_matrix(matrix)


@pytest.mark.parametrize("kind", ["fifo", "deep", "garbage", "folder"])
def test_a_hostile_matrix_cache_stamp_is_rebuilt(kind, finished, tmp_path, capsys):
    """.cache/matrix.json is the feedback matrix's cache stamp: a hostile one is ignored and rewritten."""
    from pipeline.feedback.parquet import load_matrices, read_matrix
    from pipeline.runtime.store import Artifact

    folder = next((finished[0] / "feedback").glob("[!.]*/matrix.parquet")).parent
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    artifact = Artifact("feedback", copy.name, copy)
    game = SimpleNamespace(guesses_digest=read_matrix(copy / "matrix.parquet")[1]["guesses_sha256"],
                           secrets_digest=read_matrix(copy / "matrix.parquet")[1]["secrets_sha256"])
    expected = read_matrix(copy / "matrix.parquet")[0]
    load_matrices(artifact, game)  # makes the cache
    stamp = copy / ".cache" / "matrix.json"
    stamp.unlink()
    if kind == "garbage":
        stamp.write_text('{"parquet": "x", "crc32": NaN}')
    else:
        make_hostile(stamp, kind)
    codes, codes_t = load_matrices(artifact, game)
    assert (codes == expected).all() and (codes_t == expected.T).all()
    if kind != "folder":  # a folder in its place cannot be replaced by a file: the cache is skipped
        assert json.loads(stamp.read_text())["crc32"] == read_matrix(copy / "matrix.parquet")[1]["crc32"]


def test_the_checker_reads_files_without_the_pipeline_side():
    """The checker's reader is its own: with pipeline.runtime, search, feedback and stages unimportable,
    verify-tree's reader still refuses a FIFO."""
    import subprocess
    import sys
    import textwrap

    from pipeline.config.settings import PROJECT_ROOT

    script = textwrap.dedent("""
        import os, sys, tempfile
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[:2] in (["pipeline", "runtime"], ["pipeline", "search"], ["pipeline", "feedback"],
                                           ["pipeline", "stages"], ["pipeline", "artifacts"]):
                    raise ImportError(f"blocked: {name}")
        sys.meta_path.insert(0, Block())
        from pipeline.proofs.certificates.optimal import load_certificate
        from pipeline.proofs.certificates.tree import read_tree_body
        folder = tempfile.mkdtemp()
        os.mkfifo(os.path.join(folder, "certificate.json"))
        try:
            load_certificate(folder)
        except Exception as err:
            print(type(err).__name__, str(err).endswith("certificate.json: not a regular file (a FIFO)"))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=SECONDS,
                          cwd=PROJECT_ROOT, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["CertificateError", "True"]

"""Feedback stage: Parquet round trip, corrupt files, skip / force / recompute, Ray row blocks, atomicity."""

import json
import logging
import subprocess
import sys

import numpy as np
import pytest

from pipeline import PipelineError
from pipeline.feedback.matrix import game_matrix
from pipeline.feedback.parquet import read_matrix, write_matrix
from pipeline.games.catalog import builtin_game
from pipeline.runtime.store import ArtifactStore


def test_parquet_round_trip_uint8_and_uint16(tmp_path, small_wordle):
    for name, game in (("mini_nerdle", builtin_game("mini_nerdle")), ("words", small_wordle.game)):
        codes = game_matrix(game)
        write_matrix(tmp_path / "m.parquet", codes, {"game": name}, row_group_rows=64)
        back, meta = read_matrix(tmp_path / "m.parquet")
        assert back.dtype == codes.dtype and np.array_equal(back, codes)
        assert meta["shape"] == list(codes.shape) and meta["game"] == name and "3**i" in meta["code_convention"]
    assert game_matrix(builtin_game("mini_nerdle")).dtype == np.uint16
    assert game_matrix(small_wordle.game).dtype == np.uint8


def test_layout_is_fixed_size_binary_zstd_without_dictionary(tmp_path, small_wordle):
    import pyarrow as pa
    import pyarrow.parquet as pq

    game = small_wordle.game
    codes = game_matrix(game)
    write_matrix(tmp_path / "m.parquet", codes, {}, row_group_rows=256)
    meta = pq.ParquetFile(tmp_path / "m.parquet").metadata
    column = meta.row_group(0).column(0)
    assert (len(game.guesses), len(game.secrets)) == (967, 167)
    assert pq.read_schema(tmp_path / "m.parquet").field("codes").type == pa.binary(167)  # one byte per secret
    assert column.compression == "ZSTD" and not column.has_dictionary_page
    assert meta.num_row_groups == 4 and meta.num_rows == 967  # 256 + 256 + 256 + 199 rows


def test_corrupt_matrix_is_detected(tmp_path, small_wordle):
    codes = game_matrix(small_wordle.game)
    path = tmp_path / "m.parquet"
    write_matrix(path, codes, {})
    raw = bytearray(path.read_bytes())
    (tmp_path / "truncated.parquet").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(PipelineError, match="not a readable Parquet"):
        read_matrix(tmp_path / "truncated.parquet")
    (tmp_path / "junk.parquet").write_text("not parquet")
    with pytest.raises(PipelineError):
        read_matrix(tmp_path / "junk.parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[b"pipeline.matrix"])
    meta["crc32"] += 1
    pq.write_table(table.replace_schema_metadata({b"pipeline.matrix": json.dumps(meta)}), tmp_path / "crc.parquet")
    with pytest.raises(PipelineError, match="corrupt"):
        read_matrix(tmp_path / "crc.parquet")
    pq.write_table(pa.table({"codes": [b"x"]}), tmp_path / "other.parquet")
    with pytest.raises(PipelineError, match="no pipeline matrix metadata"):
        read_matrix(tmp_path / "other.parquet")


def test_stage_writes_matrix_lists_and_manifest(run_pipeline):
    artifact = run_pipeline("stage=feedback", "game=mini_nerdle")
    codes, meta = read_matrix(artifact.file("matrix.parquet"))
    game = builtin_game("mini_nerdle")
    assert np.array_equal(codes, game_matrix(game))
    assert meta["secrets_sha256"] == game.secrets_digest
    assert artifact.file("secrets.txt").read_text().split() == list(game.secrets)
    manifest = artifact.manifest
    assert manifest["stage"] == "feedback" and manifest["key"] == artifact.key
    assert set(manifest["files"]) == {"matrix.parquet", "guesses.txt", "secrets.txt", "stage.log"}
    assert "feedback: running for game mini_nerdle" in artifact.file("stage.log").read_text()
    assert artifact.path.parent.parent.name == "outputs"


def test_skipped_when_done_recomputed_when_forced_or_inputs_change(run_pipeline, tmp_path):
    first = run_pipeline("stage=feedback", "game=mini_nerdle")
    written = first.file("manifest.json").stat().st_mtime_ns
    said = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())
    logging.getLogger("pipeline").addHandler(handler)
    try:
        again = run_pipeline("stage=feedback", "game=mini_nerdle")
    finally:
        logging.getLogger("pipeline").removeHandler(handler)
    assert again.key == first.key and first.file("manifest.json").stat().st_mtime_ns == written
    assert any("up to date, skipped" in line for line in said)
    forced = run_pipeline("stage=feedback", "game=mini_nerdle", "stage.force=true")
    assert forced.key == first.key and first.file("manifest.json").stat().st_mtime_ns != written
    words = tmp_path / "w.txt"
    words.write_text("\n".join(builtin_game("mini_nerdle").secrets[:50]))
    other = run_pipeline("stage=feedback", "game=words", "game.length=6", f"game.secrets.path={words}",
                         "game.alphabet='0123456789+-*/='")
    assert other.key != first.key
    hard = run_pipeline("stage=feedback", "game=mini_nerdle", "game.hard_mode=true")
    assert hard.key == first.key  # the matrix does not depend on hard mode


def test_row_blocks_on_ray_equal_in_process(run_pipeline, ray_session, small_wordle):
    from pipeline.games.answer import colours_to_code, feedback

    local = run_pipeline("stage=feedback", *small_wordle.overrides)
    fanned = run_pipeline("stage=feedback", *small_wordle.overrides, "stage.ray_threshold_cells=1000",
                          "stage.block_rows=100")
    assert fanned.key != local.key
    codes = read_matrix(fanned.file("matrix.parquet"))[0]
    assert np.array_equal(read_matrix(local.file("matrix.parquet"))[0], codes)
    game = small_wordle.game
    for g in range(0, len(game.guesses), 97):  # rows from every block, against the scalar answering function
        assert [int(c) for c in codes[g]] == [colours_to_code(feedback(game.guesses[g], s)) for s in game.secrets]


KILL_WHILE_WRITING = """
import os, signal, sys
from pipeline.runtime.store import ArtifactStore
store = ArtifactStore(sys.argv[1])
with store.write("feedback", "k1", {}) as out:
    out.file("matrix.parquet").write_bytes(b"half")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_kill_in_the_middle_of_writing_leaves_no_artifact(tmp_path):
    proc = subprocess.run([sys.executable, "-c", KILL_WHILE_WRITING, str(tmp_path)])
    assert proc.returncode != 0
    store = ArtifactStore(tmp_path)
    assert not store.is_done("feedback", "k1") and not (tmp_path / "feedback" / "k1").exists()
    with store.write("feedback", "k1", {"ok": True}) as out:
        out.file("matrix.parquet").write_bytes(b"whole")
    assert store.is_done("feedback", "k1")
    assert store.artifact("feedback", "k1").manifest["ok"] is True


def test_matrix_cache_serves_the_parquet_codes_and_never_stale_ones(tmp_path, small_wordle):
    """load_matrices keeps codes and their transpose beside the Parquet; a damaged cache or a rewritten
    Parquet falls back to (and rebuilds from) the Parquet; the arrays come back read-only."""
    import os

    from pipeline.feedback.parquet import load_matrices, load_matrix
    from pipeline.runtime.store import Artifact

    game = small_wordle.game
    codes = game_matrix(game)
    folder = tmp_path / "feedback" / "k"
    folder.mkdir(parents=True)
    meta = {"guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest}
    write_matrix(folder / "matrix.parquet", codes, meta, row_group_rows=100)
    artifact = Artifact("feedback", "k", folder)
    for _ in range(2):  # the first read makes the cache, the second maps it
        got, got_t = load_matrices(artifact, game)
        assert np.array_equal(got, codes) and np.array_equal(got_t, codes.T) and got_t.flags.c_contiguous
        assert not got.flags.writeable and not got_t.flags.writeable
        assert (folder / ".cache" / "codes_t.npy").is_file()
    cached = folder / ".cache" / "codes.npy"
    raw = bytearray(cached.read_bytes())
    raw[-1] ^= 1  # one flipped bit: the CRC no longer matches, so the Parquet is read again
    cached.write_bytes(raw)
    assert np.array_equal(load_matrix(artifact, game), codes)
    other = codes.copy()
    other[0, 0] = (other[0, 0] + 1) % game.n_codes
    write_matrix(folder / "matrix.parquet", other, meta, row_group_rows=100)  # a rebuilt artifact
    os.utime(folder / "matrix.parquet", ns=(1, 1))
    got, got_t = load_matrices(artifact, game)
    assert np.array_equal(got, other) and np.array_equal(got_t, other.T)
    (folder / "matrix.parquet").write_text("garbage")
    with pytest.raises(PipelineError, match="damaged"):
        load_matrices(artifact, game)


@pytest.mark.parametrize("cpus, blocks", [(1, 7), (2, 8), (64, 256), (10_000, 12972)])
def test_row_blocks_follow_the_cluster_and_cover_every_row_once(cpus, blocks):
    from pipeline.stages.feedback import blocks_for
    from pipeline.config.stages import FeedbackConfig

    got = blocks_for(12972, FeedbackConfig(), cpus)  # Wordle's guesses; at most 2048 rows a block
    assert len(got) == blocks
    assert got[0][0] == 0 and got[-1][1] == 12972 and all(a[1] == b[0] for a, b in zip(got, got[1:]))
    assert max(stop - start for start, stop in got) <= 2048

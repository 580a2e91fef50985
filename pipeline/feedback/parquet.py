"""matrix.parquet: one row per guess as FixedSizeBinary, zstd, no dictionary.

The schema metadata carries what a reader needs to trust the bytes: dtype,
shape, the code convention, both lists' digests and a CRC of the codes.
"""

import json
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.errors import PipelineError

CODE_CONVENTION = "base3: colour of position i (0 grey, 1 yellow, 2 green) has weight 3**i"
META_KEY = b"pipeline.matrix"


def write_matrix(path: Path, codes: np.ndarray, meta: dict, row_group_rows: int = 1024) -> None:
    """Write the matrix with its metadata (meta: guesses/secrets digests, length, ...)."""
    codes = np.ascontiguousarray(codes)
    n_rows, n_cols = codes.shape
    width = n_cols * codes.dtype.itemsize
    column = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), n_rows, [None, pa.py_buffer(codes.view(np.uint8).reshape(-1))]
    )
    full_meta = {
        **meta,
        "dtype": codes.dtype.name,
        "shape": [n_rows, n_cols],
        "code_convention": CODE_CONVENTION,
        "crc32": zlib.crc32(codes.view(np.uint8).reshape(-1)),
    }
    schema = pa.schema([pa.field("codes", pa.binary(width))], metadata={META_KEY: json.dumps(full_meta)})
    table = pa.Table.from_arrays([column], schema=schema)
    pq.write_table(table, path, compression="zstd", use_dictionary=False, row_group_size=row_group_rows)


def read_meta(path: Path) -> dict:
    """The matrix metadata, or a clear error if the file is not a matrix written by this project."""
    try:
        raw = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException) as err:
        raise PipelineError(f"{path} is not a readable Parquet file ({err})") from None
    if META_KEY not in raw:
        raise PipelineError(f"{path} has no pipeline matrix metadata (not written by the feedback stage?)")
    return json.loads(raw[META_KEY])


def read_matrix(path: Path) -> tuple[np.ndarray, dict]:
    """The numpy code matrix and its metadata; raises if the bytes disagree with the metadata."""
    meta = read_meta(path)
    try:
        # ParquetFile, not read_table: read_table goes through pyarrow.dataset, whose import costs 0.3 s
        column = pq.ParquetFile(path).read(columns=["codes"]).column("codes")
    except (OSError, pa.ArrowException) as err:
        raise PipelineError(f"{path} is corrupt ({err})") from None
    dtype, (n_rows, n_cols) = np.dtype(meta["dtype"]), meta["shape"]
    out = np.empty((n_rows, n_cols), dtype=dtype)
    flat, offset = out.view(np.uint8).reshape(-1), 0
    for chunk in column.chunks:
        data = np.frombuffer(chunk.buffers()[1], dtype=np.uint8, count=len(chunk) * n_cols * dtype.itemsize,
                             offset=chunk.offset * n_cols * dtype.itemsize)
        if offset + data.size > flat.size:
            break
        flat[offset : offset + data.size] = data
        offset += data.size
    if offset != flat.size or zlib.crc32(flat) != meta["crc32"]:
        raise PipelineError(f"{path} is corrupt: its codes do not match the shape/CRC in its metadata")
    return out, meta


def load_matrix(artifact, game) -> np.ndarray:
    """The code matrix of a feedback artifact, checked against the game it is used for."""
    from pipeline.runtime.store import DamagedArtifactError

    path = artifact.file("matrix.parquet")
    try:
        codes, meta = read_matrix(path)
    except PipelineError as err:
        raise DamagedArtifactError(artifact.stage, path, "missing" if not path.is_file() else
                                   f"damaged ({str(err).replace(str(path), '').strip(' :')})") from None
    if meta["guesses_sha256"] != game.guesses_digest or meta["secrets_sha256"] != game.secrets_digest:
        raise PipelineError(f"{artifact.path}: matrix was built for other word lists than game {game.name}")
    return codes

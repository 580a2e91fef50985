"""matrix.parquet: one row per guess as FixedSizeBinary, zstd, no dictionary.

The schema metadata carries what a reader needs to trust the bytes: dtype,
shape, the code convention, both lists' digests and a CRC of the codes.
"""

import json
import os
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import PipelineError
from pipeline.runtime.files import UnreadableFile, check_regular, parse_json, read_json

CODE_DTYPES = ("uint8", "uint16", "uint32")  # a code of n positions is < 3**n
MAX_CELLS = 2**40  # far beyond any game here (Nerdle: 628 M codes); a larger shape is a damaged header
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
    check_regular(path)  # a FIFO or a folder would block or confuse pyarrow
    try:
        raw = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException) as err:
        raise PipelineError(f"{path} is not a readable Parquet file ({err})") from None
    if META_KEY not in raw:
        raise PipelineError(f"{path} has no pipeline matrix metadata (not written by the feedback stage?)")
    try:
        meta = parse_json(raw[META_KEY].decode("utf-8"), path)
    except UnicodeDecodeError:
        raise PipelineError(f"{path}: its matrix metadata is not UTF-8") from None
    except UnreadableFile as err:
        raise PipelineError(f"{path}: its matrix metadata is {err.problem}") from None
    problem = meta_problem(meta)
    if problem:
        raise PipelineError(f"{path}: its matrix metadata {problem}")
    return meta


def meta_problem(meta) -> str | None:
    """Why matrix metadata cannot describe a matrix this project wrote (None if it can): a JSON object with
    a dtype of unsigned codes, a shape of two positive whole numbers within MAX_CELLS, a 32-bit CRC."""
    if not isinstance(meta, dict):
        return "is not a JSON object"
    if meta.get("dtype") not in CODE_DTYPES:
        return f"has dtype {meta.get('dtype')!r}, not one of {', '.join(CODE_DTYPES)}"
    shape = meta.get("shape")
    if not (isinstance(shape, list) and len(shape) == 2 and all(type(n) is int and n >= 1 for n in shape)):
        return f"declares shape {shape!r}, not two positive whole numbers"
    if shape[0] * shape[1] > MAX_CELLS:
        return f"declares shape {shape}, more than {MAX_CELLS} codes"
    if type(meta.get("crc32")) is not int or not 0 <= meta["crc32"] < 2**32:
        return "has no 32-bit crc32"
    return None


def read_matrix(path: Path) -> tuple[np.ndarray, dict]:
    """The numpy code matrix and its metadata; raises if the bytes disagree with the metadata."""
    meta = read_meta(path)
    try:
        # ParquetFile, not read_table: read_table goes through pyarrow.dataset, whose import costs 0.3 s
        column = pq.ParquetFile(path).read(columns=["codes"]).column("codes")
    except (OSError, pa.ArrowException) as err:
        raise PipelineError(f"{path} is corrupt ({err})") from None
    dtype, (n_rows, n_cols) = np.dtype(meta["dtype"]), meta["shape"]
    if len(column) != n_rows or getattr(column.type, "byte_width", None) != n_cols * dtype.itemsize:
        raise PipelineError(f"{path} is corrupt: its metadata declares shape {meta['shape']}, its column holds "
                            f"{len(column)} rows of {getattr(column.type, 'byte_width', '?')} bytes")
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


CACHE_DIR = ".cache"  # inside the feedback artifact: uncompressed copies of matrix.parquet's codes
STAMP_BYTES = 4096  # .cache/matrix.json is a few numbers
CACHE_MAX_BYTES = 256 * 2**20  # a bigger matrix (Nerdle's: 628 MB) is not copied twice more on disk


def load_matrix(artifact, game) -> np.ndarray:
    """The code matrix of a feedback artifact, checked against the game it is used for."""
    return load_matrices(artifact, game, transposed=False)[0]


def load_matrices(artifact, game, transposed: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """(codes, codes.T made C-contiguous, or None unless `transposed`) of a feedback artifact, read-only.

    Decoding the Parquet (zstd) and transposing cost about half a second on Wordle; so the first read keeps
    both as uncompressed .npy files in the artifact's hidden `.cache/` folder (matrices up to CACHE_MAX_BYTES)
    and later reads map them.  The cache is used only while the Parquet is the very file it was made from (size, mtime, inode) and its
    bytes still match their CRCs; else it is rebuilt from the Parquet, which stays the artifact."""
    from pipeline.runtime.store import DamagedArtifactError

    from pipeline.runtime.store import refuse_link

    path = artifact.file("matrix.parquet")
    refuse_link(path.parent / CACHE_DIR)  # the cache is written and mapped: never through a link
    try:
        meta = read_meta(path)
        cached = _read_cache(path, meta, transposed)
        if cached is None:
            codes, meta = read_matrix(path)
            codes_t = np.ascontiguousarray(codes.T) if transposed else None
            _write_cache(path, meta, codes, codes_t)
            cached = _read_only(codes), None if codes_t is None else _read_only(codes_t)
    except PipelineError as err:
        raise DamagedArtifactError(artifact.stage, path, "missing" if not path.is_file() else
                                   f"damaged ({str(err).replace(str(path), '').strip(' :')})") from None
    if meta.get("guesses_sha256") != game.guesses_digest or meta.get("secrets_sha256") != game.secrets_digest:
        raise PipelineError(f"{artifact.path}: matrix was built for other word lists than game {game.name}")
    return cached


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _stamp(path: Path) -> list[int]:
    """What identifies the Parquet file a cache was made from."""
    status = path.stat()
    return [status.st_size, status.st_mtime_ns, status.st_ino]


def _read_cache(path: Path, meta: dict, transposed: bool):
    """(codes, codes_t or None) mapped from the cache, or None when it is missing, stale or damaged."""
    from pipeline.runtime.store import is_link

    folder = path.parent / CACHE_DIR
    if any(is_link(folder / name) for name in ("matrix.json", "codes.npy", "codes_t.npy")):
        return None  # rebuilt: the rename replaces the link itself, never what it points to
    try:
        stamp = read_json(folder / "matrix.json", STAMP_BYTES)
        check_regular(folder / "codes.npy")
        if transposed:
            check_regular(folder / "codes_t.npy")
        if stamp["parquet"] != _stamp(path) or stamp["crc32"] != meta["crc32"] or (transposed and
                                                                                   "crc32_t" not in stamp):
            return None
        codes = _mapped(folder / "codes.npy", meta, meta["shape"], stamp["crc32"])
        codes_t = _mapped(folder / "codes_t.npy", meta, meta["shape"][::-1], stamp["crc32_t"]) if transposed \
            else None
    except (PipelineError, OSError, ValueError, KeyError, TypeError):
        return None  # a damaged, missing or planted cache file: rebuilt from the Parquet
    if codes is None or (transposed and codes_t is None):
        return None
    return codes, codes_t


def _mapped(path: Path, meta: dict, shape, crc: int) -> np.ndarray | None:
    """The read-only array mapped from a cache file, or None if its dtype, shape or CRC is not the expected."""
    array = np.asarray(np.load(path, mmap_mode="r"))  # a plain read-only ndarray over the mapping
    if array.dtype != np.dtype(meta["dtype"]) or list(array.shape) != list(shape) or not array.flags.c_contiguous:
        return None
    return array if zlib.crc32(array.view(np.uint8).reshape(-1)) == crc else None


def _write_cache(path: Path, meta: dict, codes: np.ndarray, codes_t: np.ndarray | None) -> None:
    """Keep the decoded matrix (and its transpose) beside the Parquet; silently skipped where not writable.

    Each file is written under a temporary name and renamed, the stamp last, so a reader (another process
    on the same artifact) sees either the old cache, no cache or the new one, never half of one."""
    folder = path.parent / CACHE_DIR
    stamp = {"parquet": _stamp(path), "crc32": meta["crc32"]}
    if codes.nbytes > CACHE_MAX_BYTES:
        return
    try:
        folder.mkdir(exist_ok=True)
        (folder / "matrix.json").unlink(missing_ok=True)
        _save(folder / "codes.npy", codes)
        if codes_t is not None:
            _save(folder / "codes_t.npy", codes_t)
            stamp["crc32_t"] = zlib.crc32(codes_t.view(np.uint8).reshape(-1))
        _save(folder / "matrix.json", json.dumps(stamp).encode())
    except OSError:
        pass  # a read-only artifact or a full disk: read the Parquet every time


def _save(target: Path, content: np.ndarray | bytes) -> None:
    """Write an array (.npy) or bytes under a temporary name, then rename it to `target`; the temp file is
    created afresh (never through a link) and removed if the write fails (a full disk keeps no orphan)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, content) if isinstance(content, np.ndarray) else handle.write(content)
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise

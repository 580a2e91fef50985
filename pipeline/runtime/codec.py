"""A small typed codec for task results kept on disk (shards): no pickle, so whoever can write the
shared volume cannot make the driver run code by planting a shard.

A shard is one `.npz` file (numpy's zip of `.npy` arrays, read with `allow_pickle=False`): the array
`doc` holds a UTF-8 JSON document describing the value, and `a0`, `a1`, ... hold its numpy arrays.
Plain JSON carries None, bool, int, float and str; every other node is a one-key object naming its
type: `{"list": [...]}`, `{"tuple": [...]}`, `{"dict": [[key, value], ...]}` (keys of any storable
type), `{"array": n}` (numeric, bool or string dtype), `{"scalar": n}` (a numpy scalar, as a 0-d
array) and `{"dataclass": ["module:Name", {field: value}]}` for dataclasses of this package's modules
that are already imported (decoding imports nothing and calls nothing but the class's constructor).
Anything else is refused when the shard is written."""

import dataclasses
import io
import json
import sys
import zipfile

import numpy as np

FORMAT = 1
ARRAY_KINDS = "biufcUS"  # bool, ints, floats, complex, str, bytes: never object or structured dtypes
PACKAGE = "pipeline."


class CodecError(ValueError):
    """A value the shard format does not store, or a shard that is not a valid one."""


def dumps(value) -> bytes:
    """The shard bytes of `value` (CodecError names the first part it cannot store)."""
    arrays: list[np.ndarray] = []
    doc = json.dumps({"format": FORMAT, "value": _encode(value, arrays, "result")})
    buffer = io.BytesIO()
    named = {f"a{i}": a for i, a in enumerate(arrays)}
    np.savez(buffer, doc=np.frombuffer(doc.encode(), dtype=np.uint8), **named)
    return buffer.getvalue()


def loads(data: bytes):
    """The value of shard bytes; CodecError when they are not a shard this codec wrote."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            files = {name: npz[name] for name in npz.files}
        doc = json.loads(files.pop("doc").tobytes().decode())
    except (OSError, ValueError, KeyError, UnicodeDecodeError, EOFError, zipfile.BadZipFile) as err:
        raise CodecError(f"not a shard: {err}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or "value" not in doc:
        raise CodecError("not a shard of this format")
    try:
        return _decode(doc["value"], files)
    except (TypeError, IndexError) as err:  # e.g. an unhashable key, a malformed node
        raise CodecError(f"not a valid shard: {err}") from None


def _encode(value, arrays: list, where: str):
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list or kind is tuple:
        return {kind.__name__: [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]}
    if kind is dict:
        return {"dict": [[_encode(k, arrays, f"{where} key"), _encode(v, arrays, f"{where}[{k!r}]")]
                         for k, v in value.items()]}
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind not in ARRAY_KINDS or array.dtype.names is not None:
            raise CodecError(f"{where}: a shard stores no {array.dtype} arrays")
        arrays.append(array)
        return {"array" if kind is np.ndarray else "scalar": len(arrays) - 1}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encode_dataclass(value, arrays, where)
    raise CodecError(f"{where}: a shard cannot store a {kind.__module__}.{kind.__qualname__}")


def _encode_dataclass(value, arrays: list, where: str):
    kind = type(value)
    if not kind.__module__.startswith(PACKAGE) or "<" in kind.__qualname__:
        raise CodecError(f"{where}: a shard stores only this package's dataclasses, not {kind.__qualname__}")
    fields = dataclasses.fields(value)
    if any(not f.init for f in fields):
        raise CodecError(f"{where}: {kind.__qualname__} has fields its constructor does not take")
    return {"dataclass": [f"{kind.__module__}:{kind.__qualname__}",
                          {f.name: _encode(getattr(value, f.name), arrays, f"{where}.{f.name}") for f in fields}]}


def _decode(node, files: dict):
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if not isinstance(node, dict) or len(node) != 1:
        raise CodecError(f"not a shard node: {str(node)[:60]}")
    (tag, body), = node.items()
    if tag in ("list", "tuple") and isinstance(body, list):
        items = [_decode(v, files) for v in body]
        return items if tag == "list" else tuple(items)
    if tag == "dict" and isinstance(body, list) and all(isinstance(p, list) and len(p) == 2 for p in body):
        return {_decode(k, files): _decode(v, files) for k, v in body}
    if tag in ("array", "scalar") and isinstance(body, int) and f"a{body}" in files:
        array = files[f"a{body}"]
        return array if tag == "array" else array[()]
    if tag == "dataclass" and isinstance(body, list) and len(body) == 2 and isinstance(body[1], dict):
        return _decode_dataclass(body[0], {k: _decode(v, files) for k, v in body[1].items()})
    raise CodecError(f"not a shard node: {tag!r}")


def _decode_dataclass(name, fields: dict):
    """An instance of a dataclass of an already-imported module of this package, and nothing else."""
    module_name, _, qualname = str(name).partition(":")
    module = sys.modules.get(module_name) if module_name.startswith(PACKAGE) else None
    kind = module
    for part in qualname.split(".") if module else ():
        kind = getattr(kind, part, None)
    if not (isinstance(kind, type) and dataclasses.is_dataclass(kind)):
        raise CodecError(f"a shard names {name!r}, which is not a dataclass of this package's imported modules")
    if set(fields) != {f.name for f in dataclasses.fields(kind) if f.init}:
        raise CodecError(f"a shard's {name} has other fields than the class")
    return kind(**fields)

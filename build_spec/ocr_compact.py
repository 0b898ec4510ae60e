"""OCR model weights stored as float16 and computed in float32: the packaged app's models at half their size.

Issue 41 (the Linux bundle at most 250 MiB unpacked): the PP-OCR detection and recognition models are float32
ONNX files (9.5 and 20.3 MiB), nearly all of it convolution and matrix weights. :func:`compact_model` rewrites a
model so that every large float32 initializer is stored as float16 and turned back into float32 by a ``Cast``
node in front of its original consumers. The graph's inputs, outputs and every operator stay float32;
onnxruntime folds the casts into float32 constants when it loads the model (rapidocr opens its sessions with
``ORT_ENABLE_ALL``), so inference runs as before on weights rounded to float16 (each changes by at most 2**-11 ≈
4.9e-4 of itself; int8 quantization, which failed the OCR tests, rounds to 256 levels a tensor and changes
the arithmetic too).

Left as they are: float32 tensors smaller than ``min_elements`` (biases, normalisation parameters: little to
gain), tensors with values outside float16's finite range, tensors whose rounding error would exceed
:data:`MAX_ERROR` of their largest weight (the detector has many weights near zero; float16 keeps them to
within 2**-25, which is what counts next to weights of 0.1-3), initializers that are also graph inputs (a
caller may override those), and everything that is not float32.
The model's metadata (the recognizer's character list) and opset are kept.

The build (``bidstudio.spec``) ships the compacted pair under the names in
:data:`app.documents.ocr.engine.COMPACT_MODEL_FILES` instead of the float32 files, and the engine prefers that
pair when it is there. This module needs the ``onnx`` package (Apache-2.0, the ``build`` extra), which is why it
lives with the build and not in ``app`` (the app never imports it; tests/test_architecture.py allows ``app`` only
run-time dependencies). Run by hand, it compacts the installed models into a folder::

    python build_spec/ocr_compact.py OUT_DIR   # then copy OUT_DIR/*.onnx beside rapidocr's models to use them
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Float32 initializers with fewer elements than this stay float32 (4 KiB each at most).
MIN_ELEMENTS = 1024
#: The largest finite float16.
FP16_MAX = 65504.0
#: The smallest normal float16: a tensor whose largest weight is below it would be all subnormal and stays float32.
FP16_TINY = 6.103515625e-05
#: The largest rounding error allowed, relative to the tensor's largest weight: a weight in float16's normal range
#: changes by at most 2**-11 of itself; one below it (subnormal, or flushed to zero below 2**-25) by at most 2**-25
#: in absolute terms, which is negligible beside the tensor's large weights. A tensor over this stays float32.
MAX_ERROR = 2.0**-10


@dataclass(frozen=True)
class CompactResult:
    """What :func:`compact_model` did: initializers stored as float16 and left float32, file sizes in bytes,
    and the largest change of a converted weight relative to the largest weight of its tensor."""

    converted: int
    kept: int
    bytes_before: int
    bytes_after: int
    max_error: float


def _unique(name: str, taken: set[str]) -> str:
    candidate, i = name, 1
    while candidate in taken:
        candidate = f"{name}_{i}"
        i += 1
    taken.add(candidate)
    return candidate


def compact_proto(model: Any, min_elements: int = MIN_ELEMENTS) -> tuple[Any, int, int, float]:
    """Rewrite an ``onnx.ModelProto`` in place (see the module docstring); (model, converted, kept, max_error)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    graph_inputs = {value.name for value in graph.input}
    taken = {value.name for value in (*graph.input, *graph.output, *graph.value_info)}
    taken |= {init.name for init in graph.initializer}
    taken |= {out for node in graph.node for out in node.output} | {node.name for node in graph.node}
    casts, initializers = [], []
    converted = kept = 0
    max_error = 0.0
    for init in graph.initializer:
        if (init.data_type != TensorProto.FLOAT or math.prod(init.dims) < min_elements
                or init.name in graph_inputs):
            initializers.append(init)
            kept += init.data_type == TensorProto.FLOAT
            continue
        weights = numpy_helper.to_array(init).astype(np.float32)
        scale = float(np.abs(weights).max(initial=0.0))
        if not np.isfinite(weights).all() or scale > FP16_MAX or scale < FP16_TINY:
            initializers.append(init)  # out of float16's range, or the whole tensor would be subnormal
            kept += 1
            continue
        half = weights.astype(np.float16)
        error = float(np.abs(half.astype(np.float32) - weights).max()) / scale
        if error > MAX_ERROR:
            initializers.append(init)
            kept += 1
            continue
        max_error = max(max_error, error)
        stored = _unique(f"{init.name}__fp16", taken)
        initializers.append(numpy_helper.from_array(half, stored))
        casts.append(helper.make_node("Cast", [stored], [init.name], to=TensorProto.FLOAT,
                                      name=_unique(f"{init.name}__to_float", taken)))
        converted += 1
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend([*casts, *nodes])  # the casts first: the node list stays in topological order
    return model, converted, kept, max_error


def compact_model(source: Path, target: Path, min_elements: int = MIN_ELEMENTS) -> CompactResult:
    """Write ``source`` (a float32 ONNX model) to ``target`` with its large weights stored as float16.

    The result is checked with ``onnx.checker`` and written through a temporary file, so ``target`` is either
    the whole compacted model or left as it was.
    """
    import onnx

    model = onnx.load(str(source))
    model, converted, kept, max_error = compact_proto(model, min_elements)
    onnx.checker.check_model(model)
    target.parent.mkdir(parents=True, exist_ok=True)
    trial = target.with_name(target.name + ".partial")
    try:
        onnx.save(model, str(trial))
        os.replace(trial, target)
    finally:
        trial.unlink(missing_ok=True)
    return CompactResult(converted=converted, kept=kept, bytes_before=source.stat().st_size,
                         bytes_after=target.stat().st_size, max_error=max_error)


def compact_bundled_models(folder: Path, target: Path) -> list[tuple[Path, CompactResult]]:
    """Compact the engine's float32 detection and recognition models from ``folder`` into ``target`` under the
    names :data:`~app.documents.ocr.engine.COMPACT_MODEL_FILES`; each compacted file with what was done."""
    from app.documents.ocr.engine import COMPACT_MODEL_FILES, MODEL_FILES

    out = []
    for name, compact_name in zip(MODEL_FILES, COMPACT_MODEL_FILES, strict=True):
        dest = target / compact_name
        out.append((dest, compact_model(folder / name, dest)))
    return out


def main(argv: list[str]) -> int:
    """``ocr_compact.py OUT_DIR``: the installed rapidocr's detection and recognition models compacted into OUT_DIR."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from app.documents.ocr.engine import models_dir

    folder = models_dir()
    if len(argv) != 1 or folder is None:
        print("usage: python build_spec/ocr_compact.py OUT_DIR (rapidocr must be installed)", file=sys.stderr)
        return 2
    for path, result in compact_bundled_models(folder, Path(argv[0])):
        print(f"{path}: {result.converted} tensors float16, {result.kept} kept float32, "
              f"{result.bytes_before / 2**20:.1f} -> {result.bytes_after / 2**20:.1f} MiB, "
              f"largest change {result.max_error:.1e} of a tensor's largest weight")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

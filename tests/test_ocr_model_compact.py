"""The OCR models with float16-stored weights (build_spec/ocr_compact.py, issue 41): what the transform writes,
that inference stays float32 on the rounded weights, that the engine prefers the compacted pair, and that the
compacted real models read a generated page as the float32 ones do."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from app.documents.ocr import engine as ocr_engine
from app.documents.ocr.engine import COMPACT_MODEL_FILES, MODEL_FILES, OcrEngine, engine_available

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build_spec"))

needs_onnx = pytest.mark.skipif(
    importlib.util.find_spec("onnx") is None or importlib.util.find_spec("onnxruntime") is None,
    reason="onnx (build extra) or onnxruntime not installed")


def _tiny_model(path: Path, big_value: float = 1e5) -> dict[str, np.ndarray]:
    """A small float32 model: Conv → ReLU → average → MatMul + bias on input ``x``, and on input ``v`` a MatMul
    whose weight float16 cannot hold; returns its initializers by name."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    weights = {
        "conv_w": (rng.standard_normal((64, 3, 3, 3)) * 0.2).astype(np.float32),  # 1728: float16
        "conv_b": (rng.standard_normal(64) * 0.1).astype(np.float32),  # 64: small, stays float32
        "fc_w": (rng.standard_normal((64, 32)) * 0.3).astype(np.float32),  # 2048: float16
        "fc_b": (rng.standard_normal(32) * 0.1).astype(np.float32),
        "wide_w": (rng.standard_normal((64, 32)) * 0.3).astype(np.float32),  # 2048 but out of float16's range
        "flat_shape": np.array([1, 64], dtype=np.int64),
    }
    weights["wide_w"][3, 5] = big_value
    weights["conv_w"][0, 0, 0, :] = [1e-9, -3e-7, 0.0]  # tiny weights beside large ones: float16 may flush them
    nodes = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["g"]),
        helper.make_node("Reshape", ["g", "flat_shape"], ["f"]),
        helper.make_node("MatMul", ["f", "fc_w"], ["m"]),
        helper.make_node("Add", ["m", "fc_b"], ["y"]),
        helper.make_node("MatMul", ["v", "wide_w"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 32])],
        [numpy_helper.from_array(value, name) for name, value in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 7
    helper.set_model_props(model, {"character": "一\n二\n三"})
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return weights


def _run(path: Path, x: np.ndarray, optimized: Path | None = None) -> list[np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # constant folding included
    if optimized is not None:
        options.optimized_model_filepath = str(optimized)
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    v = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 64)
    return [np.asarray(out) for out in session.run(None, {"x": x, "v": v})]


@needs_onnx
def test_large_weights_are_stored_as_float16_and_inference_stays_float32(tmp_path: Path) -> None:
    import onnx
    from ocr_compact import compact_model
    from onnx import TensorProto, numpy_helper

    source, target = tmp_path / "tiny.onnx", tmp_path / "tiny.f16w.onnx"
    weights = _tiny_model(source)
    result = compact_model(source, target)
    assert (result.converted, result.kept) == (2, 3)  # conv_w, fc_w; conv_b, fc_b (small), wide_w (range)
    assert result.bytes_after < result.bytes_before
    assert 0 < result.max_error <= 2.0**-11

    model = onnx.load(str(target))
    types = {init.name: init.data_type for init in model.graph.initializer}
    assert types == {"conv_w__fp16": TensorProto.FLOAT16, "fc_w__fp16": TensorProto.FLOAT16,
                     "conv_b": TensorProto.FLOAT, "fc_b": TensorProto.FLOAT, "wide_w": TensorProto.FLOAT,
                     "flat_shape": TensorProto.INT64}
    casts = [n for n in model.graph.node if n.op_type == "Cast"]
    assert sorted((n.input[0], n.output[0]) for n in casts) == [("conv_w__fp16", "conv_w"), ("fc_w__fp16", "fc_w")]
    assert all(a.i == TensorProto.FLOAT for n in casts for a in n.attribute if a.name == "to")
    # every operator, input and output is as it was: float32 in, float32 out
    assert [n.op_type for n in model.graph.node if n.op_type != "Cast"] == [
        "Conv", "Relu", "GlobalAveragePool", "Reshape", "MatMul", "Add", "MatMul"]
    assert [v.type.tensor_type.elem_type for v in (*model.graph.input, *model.graph.output)] == [TensorProto.FLOAT] * 4
    assert {p.key: p.value for p in model.metadata_props} == {"character": "一\n二\n三"}
    stored = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    np.testing.assert_array_equal(stored["conv_w__fp16"], weights["conv_w"].astype(np.float16))
    np.testing.assert_array_equal(stored["wide_w"], weights["wide_w"])

    x = np.random.default_rng(3).random((1, 3, 16, 16), dtype=np.float32)
    before = _run(source, x)
    after = _run(target, x, optimized=tmp_path / "folded.onnx")
    # the weights were rounded, so the outputs moved, but by float16's rounding only (~5e-4 relative) ...
    assert not np.array_equal(before[0], after[0])
    np.testing.assert_allclose(after[0], before[0], rtol=0, atol=2e-3 * float(np.abs(before[0]).max()))
    np.testing.assert_array_equal(after[1], before[1])  # wide_w stayed float32: bit for bit
    # ... and the arithmetic is float32: the original graph on the float16-rounded weights gives the same
    rounded = tmp_path / "rounded.onnx"
    original = onnx.load(str(source))
    for init in original.graph.initializer:
        if init.name in ("conv_w", "fc_w"):
            init.CopyFrom(numpy_helper.from_array(weights[init.name].astype(np.float16).astype(np.float32), init.name))
    onnx.save(original, str(rounded))
    for got, want in zip(after, _run(rounded, x), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # onnxruntime folded the casts away when it loaded the model: no Cast is left to run per inference
    assert [n.op_type for n in onnx.load(str(tmp_path / "folded.onnx")).graph.node].count("Cast") == 0


@needs_onnx
def test_a_tensor_float16_would_spoil_stays_float32(tmp_path: Path) -> None:
    import onnx
    from ocr_compact import compact_proto
    from onnx import TensorProto

    source = tmp_path / "tiny.onnx"
    _tiny_model(source, big_value=60000.0)  # within float16's range now: wide_w converts
    model, converted, kept, _ = compact_proto(onnx.load(str(source)))
    assert (converted, kept) == (3, 2)
    model = onnx.load(str(source))
    for init in model.graph.initializer:  # fc_w made all subnormal in float16: rounding would lose it
        if init.name == "fc_w":
            init.float_data[:] = []
            init.raw_data = (np.full((64, 32), 1e-6, dtype=np.float32)).tobytes()
    model, converted, kept, _ = compact_proto(model)
    assert {i.name: i.data_type for i in model.graph.initializer}["fc_w"] == TensorProto.FLOAT
    # an initializer that is also a graph input (a caller may feed it) is left alone
    model = onnx.load(str(source))
    model.graph.input.append(onnx.helper.make_tensor_value_info("conv_w", TensorProto.FLOAT, [64, 3, 3, 3]))
    model, converted, kept, _ = compact_proto(model)
    assert {i.name: i.data_type for i in model.graph.initializer}["conv_w"] == TensorProto.FLOAT


def test_the_engine_prefers_the_compacted_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("onnxruntime") is None:
        pytest.skip("onnxruntime not installed")
    monkeypatch.setattr(ocr_engine, "models_dir", lambda: tmp_path)
    assert ocr_engine.bundled_models() is None
    for name in MODEL_FILES:
        (tmp_path / name).write_bytes(b"float32")
    assert ocr_engine.bundled_models() == [tmp_path / n for n in MODEL_FILES]
    assert ocr_engine._engine_id() == ocr_engine.ENGINE_BASE_ID
    (tmp_path / COMPACT_MODEL_FILES[0]).write_bytes(b"half a pair")  # half a pair is not used
    assert ocr_engine.bundled_models() == [tmp_path / n for n in MODEL_FILES]
    (tmp_path / COMPACT_MODEL_FILES[1]).write_bytes(b"float16 weights")
    assert ocr_engine.bundled_models() == [tmp_path / n for n in COMPACT_MODEL_FILES]
    assert ocr_engine._engine_id() == ocr_engine.ENGINE_BASE_ID + "-f16w"  # cached pages are read anew
    for name in MODEL_FILES:  # the packaged app: the compacted pair only
        (tmp_path / name).unlink()
    assert ocr_engine.bundled_models() == [tmp_path / n for n in COMPACT_MODEL_FILES]


def _page_image(tmp_path: Path) -> np.ndarray:
    """A generated page of Chinese text, digits and a small table-like row, rendered gray at 150 dpi."""
    import pymupdf

    from tests.scanned_fixtures import text_page_pdf

    lines = ["第四章 评标办法", "技术评分表（45分）", "1 服务方案 完整可行的得满分 20分", "2 人员配置 一般的得一半分 15分",
             "预算金额：1,280,000.00 元（壹佰贰拾捌万元整）", "投标有效期：自投标截止之日起 90 日历天"]
    pdf = text_page_pdf(tmp_path / "page.pdf", lines, width=460, height=320)
    with pymupdf.open(pdf) as doc:
        pix = doc[0].get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
        return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width).copy()


@needs_onnx
@pytest.mark.skipif(not engine_available(), reason="OCR engine (rapidocr + onnxruntime) not installed")
def test_compacted_real_models_read_a_page_as_the_float32_models(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from ocr_compact import compact_bundled_models

    installed = ocr_engine.models_dir()
    assert installed is not None
    float_dir, half_dir = tmp_path / "float32", tmp_path / "f16w"
    float_dir.mkdir()
    for name in MODEL_FILES:
        (float_dir / name).symlink_to(installed / name)
    results = compact_bundled_models(installed, half_dir)
    assert [p.name for p, _ in results] == list(COMPACT_MODEL_FILES)
    for _, result in results:  # about half the size: nearly all of each file is large weights
        assert result.bytes_after < 0.53 * result.bytes_before
        assert result.max_error <= 2.0**-11

    image = _page_image(tmp_path)
    read = {}
    for label, folder in (("float32", float_dir), ("f16w", half_dir)):
        monkeypatch.setattr(ocr_engine, "models_dir", lambda folder=folder: folder)
        used = ocr_engine.bundled_models()
        assert used is not None and used[0].parent == folder
        read[label] = OcrEngine(threads=1).recognize(image)
    half, full = read["f16w"], read["float32"]
    assert [line.text for line in full]  # the page was read at all
    assert [line.text for line in half] == [line.text for line in full]
    for a, b in zip(half, full, strict=True):
        assert max(abs(p - q) for p, q in zip(a.box, b.box, strict=True)) <= 2.0  # pixels
        assert abs(a.confidence - b.confidence) < 0.01

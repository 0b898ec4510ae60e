"""The OCR engine: rapidocr on onnxruntime with the PP-OCR Chinese models its wheel ships.

The models are inside the installed ``rapidocr`` package (``rapidocr/models``), so nothing
is downloaded at run time; :func:`bundled_models` checks they are there before the engine
is built, because rapidocr would otherwise try to fetch missing ones from the network.
The packaged app ships them with their weights stored as float16 (computed in float32:
``build_spec/ocr_compact.py``, issue 41) under :data:`COMPACT_MODEL_FILES`; that
pair is used whenever both files are there, and the cache key (:data:`ENGINE_ID`) says so.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from app.documents.errors import DocumentError

log = logging.getLogger(__name__)

#: Engine + models + settings; :data:`ENGINE_ID` adds which weights are in use.
ENGINE_BASE_ID = "rapidocr3.10-ppocrv6s-8"  # 7: crooked scans straightened; 8: seals and uneven light kept out of the rulings
MODEL_FILES = ("PP-OCRv6_det_small.onnx", "PP-OCRv6_rec_small.onnx")  # detection, recognition
#: The same models with their large weights stored as float16 and cast to float32 when loaded
#: (``build_spec/ocr_compact.py``): what the packaged app ships instead of MODEL_FILES.
COMPACT_MODEL_FILES = ("PP-OCRv6_det_small.f16w.onnx", "PP-OCRv6_rec_small.f16w.onnx")
#: The 180° line classifier: never loaded (``Global.use_cls`` is off and rapidocr builds it only when on), so the
#: packaged app leaves it out; passed to rapidocr when present so that nothing would ever be downloaded.
CLS_FILE = "ch_ppocr_mobile_v2.0_cls_mobile.onnx"
DET_LIMIT_SIDE = 1600  # the detector sees the page at most this many pixels on its long side (measured: 1280 cuts
#                       some long lines short, 2000 costs a quarter more CPU for no better accuracy)


class OcrUnavailableError(DocumentError):
    """The OCR engine or its models are not installed."""

    code = "ocr_unavailable"


@dataclass(frozen=True)
class RecognizedLine:
    """One text line as the engine read it: text, box in image pixels (x0, y0, x1, y1), confidence."""

    text: str
    box: tuple[float, float, float, float]
    confidence: float


def models_dir() -> Path | None:
    """The folder of the bundled models, or None when rapidocr is not installed."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def bundled_models() -> list[Path] | None:
    """Paths of the detection and recognition models when both are installed, else None: the compacted
    pair (:data:`COMPACT_MODEL_FILES`) when both of its files are there, else the float32 pair."""
    folder = models_dir()
    if folder is None or importlib.util.find_spec("onnxruntime") is None:
        return None
    for names in (COMPACT_MODEL_FILES, MODEL_FILES):
        paths = [folder / name for name in names]
        if all(p.is_file() for p in paths):
            return paths
    return None


def _engine_id() -> str:
    models = bundled_models()
    return ENGINE_BASE_ID + ("-f16w" if models and models[0].name == COMPACT_MODEL_FILES[0] else "")


#: Identifies engine + models + settings in cache keys: a change here reads pages anew
#: (``-f16w``: the models with float16-stored weights).
ENGINE_ID = _engine_id()


def engine_available() -> bool:
    """Whether OCR can run on this machine (package, runtime and models present)."""
    return bundled_models() is not None


def default_threads() -> int:
    """Inference threads: every core but one, which stays with the window (measured on two cores
    shared with other work: one thread reads a page in 2.0 s on 1.9 s of CPU, two in 2.9 s on 2.8 s)."""
    return max(1, (os.cpu_count() or 2) - 1)


class OcrEngine:
    """A lazily built rapidocr engine reading one image at a time (not thread-safe)."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads or default_threads()
        self._engine: Any = None

    def _build(self) -> Any:
        models = bundled_models()
        if models is None:
            raise OcrUnavailableError(
                "文字识别（OCR）组件未安装或模型文件缺失，请重新安装 BidStudio（需要 rapidocr 和 onnxruntime）"
            )
        from app.documents.ocr import cv2_lite

        cv2_lite.install()  # the packaged app leaves OpenCV out: numpy/Pillow stand in for it
        from rapidocr import RapidOCR

        det, rec = models
        cls = det.with_name(CLS_FILE)
        params: dict[str, Any] = {
            "Global.log_level": "warning",
            "Det.model_path": str(det),
            "Rec.model_path": str(rec),
            "Det.limit_type": "max",
            "Det.limit_side_len": DET_LIMIT_SIDE,
            "Global.max_side_len": 4000,
            # Tender pages are upright: the 180° line classifier only ever turned long lines into
            # garbage (seen on a shared tender's qualification list), so it is off.
            "Global.use_cls": False,
            # One line per recognizer call: batches pad every line to the widest, which cost a
            # fifth more CPU per page (1.8 s against 1.45 s, measured on five scanned pages).
            "Rec.rec_batch_num": 1,
        }
        if cls.is_file():
            params["Cls.model_path"] = str(cls)
        params["EngineConfig.onnxruntime.intra_op_num_threads"] = self.threads
        params["EngineConfig.onnxruntime.inter_op_num_threads"] = 1
        return RapidOCR(params=params)

    def recognize(self, image: np.ndarray) -> list[RecognizedLine]:
        """Lines found in ``image`` (H×W gray or H×W×3 RGB, uint8), top to bottom."""
        import numpy as np  # loaded with the engine, not when the app starts

        if self._engine is None:
            self._engine = self._build()
        if image.ndim == 2:
            image = np.stack([image] * 3, axis=-1)
        result = self._engine(image)
        boxes = getattr(result, "boxes", None)
        texts = getattr(result, "txts", None) or ()
        scores = getattr(result, "scores", None) or ()
        if boxes is None:
            return []
        out: list[RecognizedLine] = []
        for box, text, score in zip(boxes, texts, scores, strict=False):
            pts = np.asarray(box, dtype=float)
            text = str(text).strip()
            if not text:
                continue
            out.append(RecognizedLine(
                text=text,
                box=(float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())),
                confidence=float(score),
            ))
        return out

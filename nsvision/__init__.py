"""nsvision: score Next Station: London sheets from a photo, a scan or a PDF.

The public API is re-exported here lazily, so ``import nsvision.game`` stays free of OpenCV.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "analyze_sheet": "nsvision.pipeline",
    "analyze_file": "nsvision.pipeline",
    "measure_sheet": "nsvision.pipeline",
    "decide": "nsvision.pipeline",
    "Measurements": "nsvision.pipeline",
    "iter_file": "nsvision.pipeline",
    "score_network_file": "nsvision.pipeline",
    "SheetReport": "nsvision.pipeline",
    "SheetFailure": "nsvision.pipeline",
    "SectionFix": "nsvision.pipeline",
    "CircleFix": "nsvision.pipeline",
    "parse_fix": "nsvision.pipeline",
    "load_calibration": "nsvision.calibration",
    "Calibration": "nsvision.calibration",
    "Network": "nsvision.game.network",
    "GameOptions": "nsvision.game.network",
    "load_network": "nsvision.game.network",
    "check_network": "nsvision.game.rules",
    "score_network": "nsvision.game.scoring",
    "ExitCode": "nsvision.errors",
    "NsvisionError": "nsvision.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'nsvision' has no attribute {name!r}")

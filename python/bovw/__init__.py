"""bovw: bag-of-visual-words image retrieval from Python (docs/PYTHON.md).

Vocabularies (Vocabulary, train), features (extract), histograms (Histogrammer) and image databases
(Database) over the bovw C++ library; numpy arrays in and out, read in place and never copied silently;
the GIL released during every call that does real work.
"""
from ._bovw import (
    CapacityError,
    Database,
    Device,
    Error,
    Histogrammer,
    InvalidInput,
    IoError,
    KernelBuildError,
    OpenCLError,
    SearchResult,
    Vocabulary,
    __version__,
    devices,
    extract,
    feature_kinds,
    train,
)

__all__ = [
    "CapacityError",
    "Database",
    "Device",
    "Error",
    "Histogrammer",
    "InvalidInput",
    "IoError",
    "KernelBuildError",
    "OpenCLError",
    "SearchResult",
    "Vocabulary",
    "__version__",
    "devices",
    "extract",
    "feature_kinds",
    "train",
]

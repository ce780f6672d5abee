"""Type stubs of the extension module bovw._bovw (python/src/); docs/PYTHON.md describes the API."""
import os
from typing import Literal, Mapping, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
_FeatureKind = Union[Literal["surf", "sift", "orb"], str]
_Backend = Literal["auto", "serial", "openmp", "openmp-tiled", "opencl", "openmp-ann"]
_Variant = Literal["auto", "baseline", "coalesced", "float4", "local", "constant", "tiled", "tiled-tf32", "tiled-fp16"]
_SurfBackend = Literal["auto", "builtin", "opencv", "opencl"]
_Paths = Union[list[_Path], tuple[_Path, ...]]  # lists and tuples (a str is one path)
_Image = Union[npt.NDArray[np.uint8], npt.NDArray[np.uint16]]
_FeatureParameter = Union[int, float, bool, str]

class Error(Exception):
    """Base of every bovw exception: catch it to handle any failure of the library."""

class InvalidInput(Error, ValueError):
    """Bad data or arguments; `files` names the files the data came from, `problem` is the message without them."""
    files: list[str]
    problem: str

class IoError(Error, OSError):
    """A file could not be opened, read, written or renamed."""

class CapacityError(Error, MemoryError):
    """A request exceeds a device or configured limit (device memory, allocation size, pixels)."""

class OpenCLError(Error, RuntimeError):
    """An OpenCL call failed; `code` is its error code."""
    code: int

class KernelBuildError(Error, RuntimeError):
    """An OpenCL program failed to build; `log` is the compiler's log, `options` what it was given."""
    log: str
    options: str

class Device:
    """An OpenCL device; `spec` ("P:D") selects it as device= of Histogrammer and Database."""
    @property
    def spec(self) -> str: ...
    @property
    def platform(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def vendor(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def compute_units(self) -> int: ...
    @property
    def global_memory(self) -> int: ...
    @property
    def max_allocation(self) -> int: ...
    @property
    def local_memory(self) -> int: ...

def devices() -> list[Device]:
    """Every OpenCL device of every platform; empty when no OpenCL platform is installed."""

def feature_kinds() -> list[str]:
    """The feature kinds this build can extract: "orb", "sift", "surf", ..."""

class Vocabulary:
    """K visual words of width D, immutable: safe to share between threads."""
    def __init__(self, words: npt.NDArray[np.float32], descriptor_type: str = "unspecified", *,
                 copy: bool = False) -> None:
        """A vocabulary of the K x D float32 words (copied into it); TypeError for another dtype unless copy=True."""
    @staticmethod
    def load(path: _Path) -> "Vocabulary":
        """Reads a vocabulary in any format bovw writes (.bovw, .npy, .yml[.gz], .xml[.gz], .yaml[.gz], .json)."""
    def save(self, path: _Path) -> None:
        """Writes the vocabulary atomically in the format of the extension."""
    @property
    def words(self) -> npt.NDArray[np.float32]:
        """The K x D float32 words: a read-only view into the vocabulary (no copy)."""
    @property
    def descriptor_type(self) -> str:
        """What the words were trained on: "surf64", "sift128", "orb256-binary", ..., or "unspecified"."""
    @property
    def size(self) -> int:
        """K, the number of words."""
    @property
    def dimension(self) -> int:
        """D, the width of a word."""
    @property
    def fingerprint(self) -> int:
        """A 64-bit hash of K, D, the descriptor type and every word."""
    def __len__(self) -> int: ...

def train(source: Union[npt.NDArray[np.float32], _Path, _Paths], words: int, *,
          max_descriptors: int = 200000, iterations: int = 30, tolerance: float = 1e-4, seed: int = 0,
          tree_branching: int = 0, descriptor_type: Optional[str] = None, backend: _Backend = "auto",
          variant: _Variant = "auto", device: Optional[str] = None, threads: int = 0, workers: int = 0,
          copy: bool = False, features: _FeatureKind = "surf", hessian_threshold: float = 100.0,
          octaves: int = 4, octave_layers: int = 3, extended: bool = False, upright: bool = False,
          params: Optional[Mapping[str, _FeatureParameter]] = None, surf_backend: _SurfBackend = "auto",
          surf_device: str = "", max_pixels: int = 100000000) -> Vocabulary:
    """Trains a vocabulary by k-means from an N x D descriptor array, a folder of images or a list of images."""

def extract(image: Union[_Path, _Image], features: _FeatureKind = "surf", *, hessian_threshold: float = 100.0,
            octaves: int = 4, octave_layers: int = 3, extended: bool = False, upright: bool = False,
            params: Optional[Mapping[str, _FeatureParameter]] = None, surf_backend: _SurfBackend = "auto",
            surf_device: str = "", max_pixels: int = 100000000
            ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """(keypoints, descriptors) of one image: N x 6 (x, y, size, angle, response, octave) and N x D float32."""

class Histogrammer:
    """Nearest words and histograms for one vocabulary; one object's calls run one at a time."""
    def __init__(self, vocabulary: Vocabulary, backend: _Backend = "auto", variant: _Variant = "auto",
                 device: Optional[str] = None, *, threads: int = 0) -> None: ...
    def compute(self, descriptors: npt.NDArray[np.float32],
                offsets: Union[None, npt.NDArray[np.integer[npt.NBitBase]], Sequence[int]] = None, *,
                copy: bool = False) -> npt.NDArray[np.int32]:
        """The I x K int32 histograms; image i owns rows [offsets[i], offsets[i+1]) (None: one image)."""
    def assign(self, descriptors: npt.NDArray[np.float32], *, copy: bool = False) -> npt.NDArray[np.int32]:
        """The nearest word of each row (N int32)."""
    @property
    def description(self) -> str:
        """Backend, variant, device and work-group size."""

class SearchResult:
    """One result of Database.search."""
    @property
    def name(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def bow_score(self) -> float: ...
    @property
    def inliers(self) -> int: ...
    @property
    def verified(self) -> bool: ...
    @property
    def shard(self) -> int: ...
    @property
    def id(self) -> int: ...
    @property
    def homography(self) -> Optional[npt.NDArray[np.float64]]: ...

class Database:
    """An image database (.bovwdb file, .bovwshards manifest or live folder); searches run side by side and beside one add or remove."""
    @staticmethod
    def open(path: _Path, *, backend: _Backend = "auto", variant: _Variant = "auto", device: Optional[str] = None,
             threads: int = 0, workers: int = 0, surf_backend: _SurfBackend = "auto", surf_device: str = "",
             max_pixels: int = 100000000) -> "Database":
        """Opens what `bovw index` or save() wrote."""
    @staticmethod
    def create(vocabulary: Vocabulary, features: _FeatureKind = "surf", *, path: Optional[_Path] = None,
               store_keypoints: bool = False, backend: _Backend = "auto", variant: _Variant = "auto",
               device: Optional[str] = None, threads: int = 0, workers: int = 0, hessian_threshold: float = 100.0,
               octaves: int = 4, octave_layers: int = 3, extended: bool = False, upright: bool = False,
               params: Optional[Mapping[str, _FeatureParameter]] = None, surf_backend: _SurfBackend = "auto",
               surf_device: str = "", max_pixels: int = 100000000) -> "Database":
        """A new, empty database: in memory, or a live database in the folder `path`."""
    @overload
    def add(self, images: _Path) -> int: ...
    @overload
    def add(self, images: _Paths) -> list[tuple[str, str]]: ...
    @overload
    def add(self, images: _Image, *, name: _Path) -> int: ...
    def remove(self, names: Union[_Path, _Paths]) -> None:
        """Removes one image by name, or all of a list (all or none)."""
    def search(self, image: Union[_Path, _Image, npt.NDArray[np.int32]], *, top: int = 10, verify: int = 0,
               expand: int = 0, scoring: str = "auto", exclude_query: bool = False) -> list[SearchResult]:
        """The `top` best matches of a query image (path or array) or histogram, best first."""
    def prepare(self) -> None:
        """Makes the feature extractor and histogrammer now instead of at the first search or add."""
    def save(self, path: _Path) -> None:
        """Writes the database as one .bovwdb file, atomically."""
    def names(self) -> list[str]:
        """The names of every image."""
    def __len__(self) -> int: ...
    @property
    def vocabulary(self) -> Vocabulary: ...
    @property
    def features(self) -> str: ...
    @property
    def stores_keypoints(self) -> bool: ...
    @property
    def shards(self) -> int: ...

"""bovw.Histogrammer: bit for bit what `bovw histogram` writes, on every exact backend; the input
rules (float32 C-contiguous read in place, TypeError otherwise unless copy=True); every error;
threads, the GIL, and memory over repeated calls."""
import threading
import time

import numpy as np
import pytest

import bovw
from conftest import rss_bytes

SEED = 20240611


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    """Random descriptors of 5 images (one of them empty) and a vocabulary, also as .npy files."""
    folder = tmp_path_factory.mktemp("histogram")
    rng = np.random.default_rng(SEED)
    descriptors = rng.standard_normal((3000, 64)).astype(np.float32)
    words = rng.standard_normal((50, 64)).astype(np.float32)
    offsets = np.array([0, 700, 700, 1500, 2999, 3000], np.int64)
    for name, array in (("d", descriptors), ("w", words), ("o", offsets)):
        np.save(folder / (name + ".npy"), array)
    return folder, descriptors, words, offsets


def test_equals_the_cli_bit_for_bit(cli, problem):
    folder, descriptors, words, offsets = problem
    cli("histogram", "--descriptors", folder / "d.npy", "--offsets", folder / "o.npy", "--vocabulary",
        folder / "w.npy", "--output", folder / "h.npy", "--assignments", folder / "a.npy")
    histogrammer = bovw.Histogrammer(bovw.Vocabulary.load(folder / "w.npy"))
    histograms = histogrammer.compute(descriptors, offsets)
    assert histograms.dtype == np.int32 and histograms.shape == (5, 50)
    np.testing.assert_array_equal(histograms, np.load(folder / "h.npy"))
    assignments = histogrammer.assign(descriptors)
    assert assignments.dtype == np.int32
    np.testing.assert_array_equal(assignments, np.load(folder / "a.npy"))


def test_against_numpy(problem):
    """The nearest word by float64 distances (the random data has no near ties at this size)."""
    _, descriptors, words, offsets = problem
    d64, w64 = descriptors.astype(np.float64), words.astype(np.float64)
    nearest = np.argmin(((d64[:, None, :] - w64[None, :, :]) ** 2).sum(axis=2), axis=1)
    histogrammer = bovw.Histogrammer(bovw.Vocabulary(words), backend="openmp")
    np.testing.assert_array_equal(histogrammer.assign(descriptors), nearest)
    expected = np.stack([np.bincount(nearest[a:b], minlength=50) for a, b in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_array_equal(histogrammer.compute(descriptors, offsets), expected)
    np.testing.assert_array_equal(histogrammer.compute(descriptors), nearest_counts(nearest))
    np.testing.assert_array_equal(histogrammer.compute(descriptors, list(offsets)), expected)


def nearest_counts(nearest):
    return np.bincount(nearest, minlength=50)[None, :]


@pytest.mark.parametrize("backend, variant", [("serial", "auto"), ("openmp-tiled", "auto"), ("opencl", "baseline"),
                                              ("opencl", "tiled"), ("auto", "auto")])
def test_every_exact_backend_agrees(problem, backend, variant):
    _, descriptors, words, offsets = problem
    vocabulary = bovw.Vocabulary(words)
    if backend == "opencl" and not bovw.devices():
        pytest.skip("no OpenCL device")
    reference = bovw.Histogrammer(vocabulary, "openmp").compute(descriptors, offsets)
    histogrammer = bovw.Histogrammer(vocabulary, backend, variant)
    np.testing.assert_array_equal(histogrammer.compute(descriptors, offsets), reference)
    assert backend == "auto" or backend.split("-")[0] in histogrammer.description


def test_input_rules(problem):
    _, descriptors, words, offsets = problem
    histogrammer = bovw.Histogrammer(bovw.Vocabulary(words), "openmp")
    expected = histogrammer.compute(descriptors, offsets)
    wrong = {
        "float64": descriptors.astype(np.float64),
        "Fortran order": np.asfortranarray(descriptors),
        "a strided view": np.repeat(descriptors, 2, axis=0)[::2],
        "a list": descriptors.tolist(),
    }
    for name, array in wrong.items():
        with pytest.raises(TypeError, match="C-contiguous float32") as error:
            histogrammer.compute(array, offsets)
        assert "copy=True" in str(error.value), name
        np.testing.assert_array_equal(histogrammer.compute(array, offsets, copy=True), expected, err_msg=name)
    with pytest.raises(TypeError, match="2-D"):
        histogrammer.compute(descriptors[0])
    with pytest.raises(TypeError, match="2-D"):
        histogrammer.assign(descriptors[0], copy=True)
    with pytest.raises(TypeError, match="integer"):
        histogrammer.compute(descriptors, offsets.astype(np.float64))
    with pytest.raises(TypeError, match="offsets"):
        histogrammer.compute(descriptors, [0.0, 3000.0])
    # A read-only array is read in place as well.
    frozen = descriptors.copy()
    frozen.setflags(write=False)
    np.testing.assert_array_equal(histogrammer.compute(frozen, offsets), expected)


def test_outputs_own_their_memory(problem):
    _, descriptors, words, offsets = problem
    histogrammer = bovw.Histogrammer(bovw.Vocabulary(words), "openmp")
    histograms = histogrammer.compute(descriptors, offsets)
    assignments = histogrammer.assign(descriptors)
    del histogrammer
    for array in (histograms, assignments):
        assert type(array.base).__name__ == "PyCapsule" and array.flags.writeable
    assert histograms.sum() == 3000 and assignments.max() < 50


def test_errors(problem):
    _, descriptors, words, offsets = problem
    histogrammer = bovw.Histogrammer(bovw.Vocabulary(words), "openmp")
    bad = descriptors.copy()
    bad[17, 3] = np.nan
    with pytest.raises(bovw.InvalidInput, match="NaN|finite"):
        histogrammer.compute(bad)
    with pytest.raises(bovw.InvalidInput, match="width"):
        histogrammer.compute(descriptors[:, :32].copy())
    with pytest.raises(bovw.InvalidInput, match="offsets"):
        histogrammer.compute(descriptors, [0, 10])
    with pytest.raises(bovw.InvalidInput, match="offsets"):
        histogrammer.compute(descriptors, [0, 2000, 1000, 3000])
    with pytest.raises(bovw.InvalidInput, match="offsets"):
        histogrammer.compute(descriptors, [5, 3000])
    with pytest.raises(ValueError, match="nosuch"):
        bovw.Histogrammer(bovw.Vocabulary(words), "nosuch")
    with pytest.raises(ValueError, match="nosuch"):
        bovw.Histogrammer(bovw.Vocabulary(words), "opencl", "nosuch")
    with pytest.raises(bovw.InvalidInput, match="no-such-device"):
        bovw.Histogrammer(bovw.Vocabulary(words), "opencl", device="no-such-device")
    with pytest.raises(TypeError):
        bovw.Histogrammer(words)


def test_threads_share_one_histogrammer_and_use_their_own(problem):
    _, descriptors, words, offsets = problem
    vocabulary = bovw.Vocabulary(words)
    shared = bovw.Histogrammer(vocabulary, "openmp-tiled", threads=1)
    expected = shared.compute(descriptors, offsets)
    results, errors = [], []

    def work(own):
        try:
            histogrammer = bovw.Histogrammer(vocabulary, "openmp", threads=1) if own else shared
            for _ in range(10):
                results.append(histogrammer.compute(descriptors, offsets))
        except Exception as e:  # reported below: an assertion in a thread would be lost
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i % 2 == 0,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 40
    for histograms in results:
        np.testing.assert_array_equal(histograms, expected)


def test_the_gil_is_released_during_compute(problem):
    """While one thread computes, another runs Python: with the GIL held it could not run at all."""
    _, _, words, _ = problem
    rng = np.random.default_rng(SEED)
    big = rng.standard_normal((200000, 64)).astype(np.float32)
    histogrammer = bovw.Histogrammer(bovw.Vocabulary(rng.standard_normal((256, 64)).astype(np.float32)), "serial")
    start = time.perf_counter()
    histogrammer.compute(big)
    alone = time.perf_counter() - start
    worker = threading.Thread(target=histogrammer.compute, args=(big,))
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    # About alone / 1 ms ticks when the GIL is free; a held GIL would leave one or two.
    assert ticks > max(10, alone * 1000 / 10), (ticks, alone)


def test_memory_does_not_grow(problem):
    _, descriptors, words, offsets = problem
    histogrammer = bovw.Histogrammer(bovw.Vocabulary(words), "openmp")
    for _ in range(10):
        histogrammer.compute(descriptors, offsets)
    before = rss_bytes()
    for _ in range(500):
        histogrammer.compute(descriptors, offsets)
        histogrammer.assign(descriptors)
        histogrammer.compute(descriptors.astype(np.float64), offsets, copy=True)
    assert rss_bytes() - before < 16 << 20

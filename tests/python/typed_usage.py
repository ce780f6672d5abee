"""Checked by mypy --strict against the stubs (ctest python.mypy), and run by test_typed_usage.py: every
name of the module used as its documentation says, so that the stubs and the module cannot drift."""
import os
import tempfile

import numpy as np
import numpy.typing as npt

import bovw


def use(image_path: str, folder: str) -> list[str]:
    keypoints, descriptors = bovw.extract(image_path, hessian_threshold=200.0, upright=True)
    orb: npt.NDArray[np.float32] = bovw.extract(image_path, "orb", params={"nfeatures": 50})[1]
    vocabulary: bovw.Vocabulary = bovw.train(descriptors, 8, seed=1, backend="openmp")
    words: npt.NDArray[np.float32] = vocabulary.words
    histogrammer = bovw.Histogrammer(vocabulary, "openmp", threads=1)
    histograms: npt.NDArray[np.int32] = histogrammer.compute(descriptors, [0, 5, len(descriptors)])
    nearest: npt.NDArray[np.int32] = histogrammer.assign(descriptors)
    with tempfile.TemporaryDirectory() as scratch:
        vocabulary.save(os.path.join(scratch, "v.bovw"))
        loaded = bovw.Vocabulary.load(os.path.join(scratch, "v.bovw"))
        database = bovw.Database.create(loaded, store_keypoints=True, backend="openmp")
        first: int = database.add(image_path)
        skipped: list[tuple[str, str]] = database.add([os.path.join(folder, "nothing.png")])
        results: list[bovw.SearchResult] = database.search(image_path, top=3, verify=2, scoring="cosine")
        database.save(os.path.join(scratch, "db.bovwdb"))
        reopened = bovw.Database.open(os.path.join(scratch, "db.bovwdb"), threads=1)
        names: list[str] = reopened.names()
        database.remove(image_path)
    devices: list[bovw.Device] = bovw.devices()
    try:
        bovw.Vocabulary.load(os.path.join(folder, "missing.bovw"))
    except bovw.IoError as e:
        missing = str(e)
    homography = results[0].homography
    return [str(keypoints.shape), str(orb.shape), str(words.shape), str(histograms.shape), str(nearest.shape),
            str(first), str(len(skipped)), results[0].name, str(results[0].verified), str(names),
            str(len(devices)), missing, str(homography is not None), vocabulary.descriptor_type,
            histogrammer.description, bovw.__version__]

"""bovw.Vocabulary and bovw.train: every format `bovw train` writes loads to the same words; training
equals the CLI's for the same seed, from descriptors and from images; errors."""
import numpy as np
import pytest

import bovw
from conftest import rss_bytes

FORMATS = [".bovw", ".npy", ".yml", ".yml.gz", ".xml", ".xml.gz", ".json"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vocabulary")
    descriptors = np.random.default_rng(7).standard_normal((2000, 32)).astype(np.float32)
    np.save(folder / "d.npy", descriptors)
    return folder, descriptors


def test_training_on_descriptors_equals_the_cli_in_every_format(cli, sample):
    folder, descriptors = sample
    vocabulary = bovw.train(descriptors, 20, seed=5, descriptor_type="float32", backend="openmp")
    assert vocabulary.size == 20 and vocabulary.dimension == 32 and len(vocabulary) == 20
    assert vocabulary.descriptor_type == "float32"
    for extension in FORMATS:
        path = folder / ("v" + extension)
        cli("train", "--descriptors", folder / "d.npy", "--words", 20, "--seed", 5, "--descriptor-type", "float32",
            "--output", path)
        loaded = bovw.Vocabulary.load(path)
        np.testing.assert_array_equal(loaded.words, vocabulary.words, err_msg=extension)
        assert loaded.descriptor_type == ("unspecified" if extension == ".npy" else "float32"), extension
    assert bovw.Vocabulary.load(folder / "v.bovw").fingerprint == vocabulary.fingerprint


def test_training_on_images_equals_the_cli(cli, images, tmp_path):
    folder, paths = images
    cli("train", folder, "--words", 16, "--seed", 3, "--output", tmp_path / "v.bovw", "--quiet")
    expected = bovw.Vocabulary.load(tmp_path / "v.bovw")
    assert expected.descriptor_type == "surf64"
    for source in (folder, paths):
        vocabulary = bovw.train(source, 16, seed=3)
        assert vocabulary.descriptor_type == "surf64"
        np.testing.assert_array_equal(vocabulary.words, expected.words)
    cli("train", folder, "--words", 16, "--seed", 3, "--extended", "--output", tmp_path / "e.bovw", "--quiet")
    np.testing.assert_array_equal(bovw.train(folder, 16, seed=3, extended=True).words,
                                  bovw.Vocabulary.load(tmp_path / "e.bovw").words)


def test_words_are_a_read_only_view(sample):
    _, descriptors = sample
    vocabulary = bovw.Vocabulary(descriptors[:10].copy())
    words = vocabulary.words
    assert not words.flags.writeable and words.base is not None
    with pytest.raises(ValueError):
        words[0, 0] = 1
    del vocabulary
    np.testing.assert_array_equal(words, descriptors[:10])  # the view keeps the vocabulary alive


def test_save_and_load_round_trip(sample, tmp_path):
    _, descriptors = sample
    vocabulary = bovw.Vocabulary(descriptors[:12].copy(), "float32")
    for extension in FORMATS:
        path = tmp_path / ("r" + extension)
        vocabulary.save(path)
        np.testing.assert_array_equal(bovw.Vocabulary.load(str(path)).words, vocabulary.words, err_msg=extension)


def test_errors(sample, tmp_path):
    _, descriptors = sample
    with pytest.raises(bovw.InvalidInput, match="larger than the 2000 descriptors"):
        bovw.train(descriptors, 2001)
    with pytest.raises(bovw.InvalidInput):
        bovw.train(descriptors, 0)
    with pytest.raises(TypeError, match="float32"):
        bovw.train(descriptors.astype(np.float64), 4)
    assert bovw.train(descriptors.astype(np.float64), 4, copy=True).size == 4
    with pytest.raises(bovw.InvalidInput, match="descriptor"):
        bovw.train(descriptors, 4, descriptor_type="surf64")  # width 64, the descriptors have 32
    with pytest.raises(bovw.InvalidInput, match="descriptor_type"):
        bovw.train(str(tmp_path), 4, descriptor_type="surf64")
    with pytest.raises(TypeError, match="hessian_threshold"):
        bovw.train(descriptors, 4, hessian_threshold=300)  # feature options are for images
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(bovw.InvalidInput, match="empty|no image"):
        bovw.train(str(empty), 4)
    with pytest.raises(bovw.IoError):
        bovw.train(str(tmp_path / "missing"), 4)
    with pytest.raises(bovw.IoError):
        bovw.Vocabulary.load(tmp_path / "missing.bovw")
    bad = tmp_path / "bad.bovw"
    bad.write_bytes(b"BOVW" + b"\0" * 40)
    with pytest.raises(bovw.InvalidInput) as error:
        bovw.Vocabulary.load(bad)
    assert error.value.files == [str(bad)] and str(bad) in str(error.value)
    with pytest.raises(bovw.InvalidInput, match="extension|format"):
        bovw.Vocabulary(descriptors[:4].copy()).save(tmp_path / "v.txt")
    nan = descriptors[:4].copy()
    nan[1, 1] = np.inf
    with pytest.raises(bovw.InvalidInput):
        bovw.Vocabulary(nan)
    with pytest.raises(bovw.InvalidInput):
        bovw.Vocabulary(descriptors[:4].copy(), "no such type!")


def test_memory_does_not_grow(sample, tmp_path):
    _, descriptors = sample
    bovw.Vocabulary(descriptors[:100].copy()).save(tmp_path / "v.bovw")
    for _ in range(5):
        bovw.Vocabulary.load(tmp_path / "v.bovw").words
    before = rss_bytes()
    for _ in range(300):
        bovw.Vocabulary.load(tmp_path / "v.bovw").words
        bovw.train(descriptors[:200], 8, iterations=2)
    assert rss_bytes() - before < 16 << 20

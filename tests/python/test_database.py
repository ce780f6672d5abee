"""bovw.Database: the same results as `bovw index` + `bovw search`; in-memory, live and sharded
databases; adding and removing; verification; errors; threads."""
import json
import threading

import numpy as np
import pytest

import bovw
from conftest import cv2, rss_bytes, texture


@pytest.fixture(scope="module")
def vocabulary(images, tmp_path_factory):
    folder, _ = images
    path = tmp_path_factory.mktemp("vocabulary") / "v.bovw"
    vocabulary = bovw.train(folder, 32, seed=1)
    vocabulary.save(path)
    return vocabulary, str(path)


def cli_search(cli, index, query, *flags):
    result = cli("search", query, "--index", index, "--format", "json", "--top", 6, "--quiet", *flags)
    return json.loads(result.stdout)[0]["results"]


def assert_same_ranking(results, expected):
    assert [r.name for r in results] == [e["image"] for e in expected]
    for r, e in zip(results, expected):
        assert round(r.score, 9) == pytest.approx(e["score"], abs=1e-12)


def test_search_equals_the_cli(cli, images, vocabulary, tmp_path):
    folder, paths = images
    _, vocabulary_path = vocabulary
    index = str(tmp_path / "db.bovwdb")
    cli("index", folder, "--vocabulary", vocabulary_path, "--output", index, "--quiet")
    database = bovw.Database.open(index, backend="openmp")
    assert len(database) == 6 and database.names() == paths and database.shards == 1
    assert database.features.startswith("surf ")
    for scoring in ("intersection", "cosine+sqrt"):
        results = database.search(paths[2], top=6, scoring=scoring)
        assert results[0].name == paths[2] and results[0].bow_score == pytest.approx(1.0)
        assert not results[0].verified and results[0].inliers == -1 and results[0].homography is None
        assert_same_ranking(results, cli_search(cli, index, paths[2], "--scoring", scoring))
    # A database made here, from the same images, is the same database.
    made = bovw.Database.create(bovw.Vocabulary.load(vocabulary_path))
    assert made.add(paths) == []
    assert_same_ranking(made.search(paths[4], top=6), cli_search(cli, index, paths[4]))
    made.save(tmp_path / "made.bovwdb")
    assert_same_ranking(made.search(paths[4], top=6), cli_search(cli, str(tmp_path / "made.bovwdb"), paths[4]))


def test_queries_of_every_kind(images, vocabulary):
    _, paths = images
    database = bovw.Database.create(vocabulary[0])
    database.add(paths)
    by_path = database.search(paths[1])
    gray = cv2.imread(paths[1], cv2.IMREAD_GRAYSCALE)
    by_array = database.search(gray)
    assert [(r.name, r.score) for r in by_array] == [(r.name, r.score) for r in by_path]
    histogram = bovw.Histogrammer(vocabulary[0], "openmp").compute(bovw.extract(paths[1])[1])[0]
    by_histogram = database.search(histogram)
    assert [(r.name, r.score) for r in by_histogram] == [(r.name, r.score) for r in by_path]
    assert database.search(paths[1], top=2, exclude_query=True)[0].name != paths[1]
    assert len(database.search(paths[1], top=3)) == 3


def test_prepare_changes_no_answer(images, vocabulary):
    _, paths = images
    prepared = bovw.Database.create(vocabulary[0])
    prepared.prepare()  # before any image: the extractor and the histogrammer are made now
    prepared.add(paths)
    plain = bovw.Database.create(vocabulary[0])
    plain.add(paths)
    prepared.prepare()  # again: nothing more to make
    for query in paths[:3]:
        assert [(r.name, r.score) for r in prepared.search(query)] == [(r.name, r.score) for r in plain.search(query)]


def test_adding_and_removing(images, vocabulary, tmp_path):
    _, paths = images
    database = bovw.Database.create(vocabulary[0])
    assert database.add(paths[0]) == 0
    image = texture(100 + 3)
    assert database.add(image, name="three") == 1
    assert database.search(paths[3])[0].name == "three"
    missing = str(tmp_path / "missing.png")
    failures = database.add([paths[0], missing, paths[5]])
    assert sorted(f[0] for f in failures) == sorted([missing, paths[0]])
    assert all(isinstance(f[1], str) and f[1] for f in failures)
    assert len(database) == 3
    database.remove("three")
    database.remove([paths[0]])
    assert database.names() == [paths[5]]
    with pytest.raises(bovw.InvalidInput, match="three"):
        database.remove("three")
    with pytest.raises(bovw.InvalidInput, match="already indexed"):
        database.add(paths[5])
    with pytest.raises(bovw.IoError):
        database.add(missing)
    with pytest.raises(TypeError, match="name="):
        database.add(image)
    with pytest.raises(TypeError, match="name="):
        database.add(paths[1], name="x")


def test_live_database_keeps_its_changes(images, vocabulary, tmp_path):
    _, paths = images
    folder = tmp_path / "live"
    database = bovw.Database.create(vocabulary[0], path=folder, store_keypoints=True)
    database.add(paths[:4])
    database.remove(paths[0])
    del database  # closes it: one live database is open once per process
    reopened = bovw.Database.open(folder)
    assert reopened.names() == paths[1:4] and reopened.stores_keypoints
    results = reopened.search(paths[2], verify=3)
    assert results[0].name == paths[2] and results[0].verified and results[0].inliers > 12
    assert results[0].homography.shape == (3, 3)
    np.testing.assert_allclose(results[0].homography, np.eye(3), atol=0.05)  # the image itself: within a twentieth of a pixel
    # Query expansion (with the verified results other than the query itself): the query still first, verified.
    expanded = reopened.search(paths[2], verify=3, expand=2)
    assert expanded[0].name == paths[2] and expanded[0].verified and expanded[0].inliers == results[0].inliers
    assert sorted(r.name for r in expanded) == sorted(r.name for r in results)


def test_sharded_database(cli, images, vocabulary, tmp_path):
    folder, paths = images
    manifest = str(tmp_path / "db.bovwshards")
    cli("index", folder, "--vocabulary", vocabulary[1], "--output", manifest, "--shards", 2, "--quiet")
    database = bovw.Database.open(manifest)
    assert database.shards == 2 and len(database) == 6
    assert_same_ranking(database.search(paths[3], top=6), cli_search(cli, manifest, paths[3]))
    with pytest.raises(bovw.InvalidInput):
        database.add(paths[0])


def test_errors(images, vocabulary, tmp_path):
    _, paths = images
    database = bovw.Database.create(vocabulary[0])
    with pytest.raises(bovw.InvalidInput, match="no image"):
        database.search(paths[0])
    database.add(paths[0])
    with pytest.raises(bovw.InvalidInput, match="keypoints"):
        database.search(paths[0], verify=5)
    with pytest.raises(bovw.InvalidInput, match="expand needs verify"):
        database.search(paths[0], expand=2)
    with pytest.raises(bovw.InvalidInput, match="nosuch"):
        database.search(paths[0], scoring="nosuch")
    with pytest.raises(TypeError, match="int32"):
        database.search(np.zeros(32, np.float32))
    with pytest.raises(bovw.InvalidInput):
        database.search(np.zeros(31, np.int32))
    with pytest.raises(bovw.IoError):
        bovw.Database.open(tmp_path / "missing.bovwdb")
    (tmp_path / "bad.bovwdb").write_bytes(b"BOVWDB\0\0" + b"\1" * 64)
    with pytest.raises(bovw.InvalidInput, match="bad.bovwdb"):
        bovw.Database.open(tmp_path / "bad.bovwdb")
    with pytest.raises(bovw.InvalidInput):  # SIFT's 128-D descriptors do not fit SURF64 words
        bovw.Database.create(vocabulary[0], "sift")
    with pytest.raises(TypeError, match="unexpected keyword argument 'hessian_threshold'"):
        bovw.Database.open(tmp_path / "x.bovwdb", hessian_threshold=1)


def test_threads_search_one_database(images, vocabulary):
    _, paths = images
    database = bovw.Database.create(vocabulary[0])
    database.add(paths)
    expected = {p: [(r.name, r.score) for r in database.search(p)] for p in paths}
    errors, done = [], []

    def work(offset):
        try:
            for i in range(12):
                path = paths[(i + offset) % len(paths)]
                assert [(r.name, r.score) for r in database.search(path)] == expected[path]
                done.append(path)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(done) == 48


def test_searches_run_beside_an_adding_thread(images, vocabulary, tmp_path):
    _, paths = images
    database = bovw.Database.create(vocabulary[0], path=str(tmp_path / "live"))
    database.add(paths[: len(paths) // 2])
    added = [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in paths[len(paths) // 2:]]
    names = {str(p) for p in paths[: len(paths) // 2]} | {"added%d" % i for i in range(len(added))}
    errors, searches = [], []
    adding = threading.Event()
    adding.set()

    def search():
        try:
            while adding.is_set() or len(searches) < 8:
                for r in database.search(paths[len(searches) % len(paths)], top=5):
                    assert r.name in names, r.name
                searches.append(1)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=search) for _ in range(3)]
    for t in threads:
        t.start()
    for i, pixels in enumerate(added):
        database.add(pixels, name="added%d" % i)
    adding.clear()
    for t in threads:
        t.join()
    assert not errors
    assert len(database) == len(names)


def test_memory_does_not_grow(images, vocabulary):
    _, paths = images
    database = bovw.Database.create(vocabulary[0])
    database.add(paths)
    for _ in range(5):
        database.search(paths[0])
    before = rss_bytes()
    for _ in range(200):
        database.search(paths[0])
    assert rss_bytes() - before < 16 << 20

"""bovw.extract: bit for bit what `bovw extract` writes, from a path or a numpy image, every option,
and every error."""
import numpy as np
import pytest

import bovw
from conftest import cv2, rss_bytes, texture


def read_cli_output(path):
    fs = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    keypoints = fs.getNode("keypoints_x_y_size_angle_response_octave").mat()
    descriptors = fs.getNode("descriptors").mat()
    fs.release()
    return keypoints, descriptors


@pytest.mark.parametrize("options, flags", [
    ({}, []),
    ({"extended": True, "upright": True}, ["--extended", "--upright"]),
    ({"hessian_threshold": 400.0, "octaves": 3, "octave_layers": 2}, ["--hessian", 400, "--octaves", 3, "--layers", 2]),
    ({"features": "orb"}, ["--features", "orb"]),
    ({"features": "orb", "params": {"nfeatures": 100}}, ["--features", "orb", "--feature-param", "nfeatures=100"]),
    ({"features": "sift"}, ["--features", "sift"]),
])
def test_equals_the_cli_bit_for_bit(cli, box, tmp_path, options, flags):
    out = tmp_path / "box.yml.gz"
    cli("extract", box, "-o", out, *flags)
    ref_keypoints, ref_descriptors = read_cli_output(str(out))
    keypoints, descriptors = bovw.extract(box, **options)
    assert keypoints.dtype == np.float32 and descriptors.dtype == np.float32
    assert len(keypoints) > 10
    np.testing.assert_array_equal(keypoints, ref_keypoints)
    np.testing.assert_array_equal(descriptors, ref_descriptors)


def test_npy_output_equals(cli, box, tmp_path):
    out = tmp_path / "box.npy"
    cli("extract", box, "-o", out)
    np.testing.assert_array_equal(bovw.extract(box)[1], np.load(out))


def test_an_array_gives_what_its_file_gives(box, tmp_path):
    gray = cv2.imread(box, cv2.IMREAD_GRAYSCALE)
    from_path = bovw.extract(box)
    from_array = bovw.extract(gray)
    np.testing.assert_array_equal(from_array[0], from_path[0])
    np.testing.assert_array_equal(from_array[1], from_path[1])
    # Colour is converted as OpenCV's SURF converts it (cvtColor BGR2GRAY).
    colour = np.ascontiguousarray(np.dstack([gray, gray, gray]))
    np.testing.assert_array_equal(bovw.extract(colour)[1], from_path[1])
    # 16-bit is scaled by 1/257: x * 257 gives back x.
    np.testing.assert_array_equal(bovw.extract(gray.astype(np.uint16) * 257)[1], from_path[1])


def test_paths_of_every_kind(box):
    import pathlib
    expected = bovw.extract(box)[1]
    np.testing.assert_array_equal(bovw.extract(pathlib.Path(box))[1], expected)
    np.testing.assert_array_equal(bovw.extract(box.encode())[1], expected)


def test_outputs_own_their_memory(box):
    keypoints, descriptors = bovw.extract(box)
    for array in (keypoints, descriptors):
        assert type(array.base).__name__ == "PyCapsule"  # moved into the array, not copied into numpy's own
        assert array.flags.c_contiguous and array.flags.writeable
    descriptors[0, 0] = 5  # writable, and ours


def test_no_features_gives_empty_arrays():
    keypoints, descriptors = bovw.extract(np.full((100, 100), 128, np.uint8))
    assert keypoints.shape == (0, 6) and descriptors.shape == (0, 64)
    assert bovw.extract(np.full((100, 100), 128, np.uint8), extended=True)[1].shape == (0, 128)


def test_errors(box, tmp_path):
    with pytest.raises(bovw.IoError) as error:
        bovw.extract(tmp_path / "missing.png")
    assert isinstance(error.value, OSError) and "missing.png" in str(error.value)
    garbage = tmp_path / "garbage.png"
    garbage.write_bytes(b"not an image at all")
    with pytest.raises(bovw.InvalidInput) as error:
        bovw.extract(garbage)
    assert "garbage.png" in str(error.value)
    with pytest.raises(bovw.CapacityError):
        bovw.extract(box, max_pixels=1000)
    with pytest.raises(bovw.CapacityError):
        bovw.extract(np.zeros((100, 100), np.uint8), max_pixels=1000)
    with pytest.raises(TypeError, match="uint8 or uint16"):
        bovw.extract(np.zeros((100, 100), np.float32))
    with pytest.raises(TypeError, match="C-contiguous"):
        bovw.extract(np.zeros((100, 100), np.uint8)[:, ::2])
    with pytest.raises(TypeError, match="H x W"):
        bovw.extract(np.zeros((10, 10, 2), np.uint8))
    with pytest.raises(TypeError, match="path"):
        bovw.extract(42)
    with pytest.raises(TypeError, match="unexpected keyword argument 'hessian'"):
        bovw.extract(box, hessian=300)
    with pytest.raises(TypeError, match="hessian_threshold"):
        bovw.extract(box, hessian_threshold="high")
    with pytest.raises(TypeError, match="extended"):
        bovw.extract(box, extended=1)
    with pytest.raises(bovw.InvalidInput, match="SURF option"):
        bovw.extract(box, features="orb", extended=True)
    with pytest.raises(bovw.InvalidInput, match="octaves"):
        bovw.extract(box, octaves=0)
    with pytest.raises(bovw.InvalidInput, match="nosuch"):
        bovw.extract(box, features="nosuch")
    with pytest.raises(bovw.InvalidInput, match="colour"):
        bovw.extract(box, features="orb", params={"colour": 1})
    with pytest.raises(bovw.InvalidInput, match="surf_backend|tpu"):
        bovw.extract(box, surf_backend="tpu")


def test_memory_does_not_grow(box):
    image = texture(7, (300, 300))
    for _ in range(5):
        bovw.extract(image)
    before = rss_bytes()
    for _ in range(200):
        bovw.extract(image)
    assert rss_bytes() - before < 16 << 20

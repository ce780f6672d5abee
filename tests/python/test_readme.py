"""The README's Python example, taken out of README.md and run as it is, in a folder that holds what
it names (photos/a.jpg, photos/b.jpg, query.jpg: textures, the query a view of a.jpg): so that the
example cannot go stale. Its searches must find a.jpg first, and verify it."""
import os
import re
import runpy

from conftest import cv2, texture

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def readme_example():
    text = open(README, encoding="utf-8").read()
    section = text[text.index("## Python"):]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "README.md's Python section has no ```python block"
    return blocks[0]


def test_the_readme_example_runs_and_finds_the_query(tmp_path, capsys, monkeypatch):
    photos = tmp_path / "photos"
    photos.mkdir()
    for i, name in enumerate(["a.jpg", "b.jpg", "c.jpg", "d.jpg"]):
        assert cv2.imwrite(str(photos / name), texture(300 + i, size=(240, 320)), [cv2.IMWRITE_JPEG_QUALITY, 95])
    a = cv2.imread(str(photos / "a.jpg"), cv2.IMREAD_GRAYSCALE)
    turned = cv2.warpAffine(a, cv2.getRotationMatrix2D((160, 120), 8, 0.95), (320, 240), borderMode=cv2.BORDER_REFLECT)
    assert cv2.imwrite(str(tmp_path / "query.jpg"), turned)
    script = tmp_path / "readme_example.py"
    script.write_text(readme_example())
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(script), run_name="__main__")
    printed = capsys.readouterr().out.split("\n")
    assert printed[0].startswith("photos/a.jpg "), printed  # the bag-of-words ranking
    assert printed[2].startswith("photos/a.jpg ") and printed[2].endswith(" True"), printed  # verified
    assert (tmp_path / "photos.bovwdb").is_file()

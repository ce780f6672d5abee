"""Runs typed_usage.py (the file mypy checks against the stubs) for real, and checks that the stubs
name every public name the module has, each with a docstring in the module."""
import ast
import os

import bovw
import typed_usage


def test_the_typed_usage_runs(box, tmp_path):
    result = typed_usage.use(box, str(tmp_path))
    assert result[7] == box and result[8] == "True" and "missing.bovw" in result[11]


def test_stubs_cover_the_module_and_everything_has_a_docstring():
    stub_path = os.path.join(os.path.dirname(bovw.__file__), "_bovw.pyi")
    tree = ast.parse(open(stub_path).read())
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    public = set(bovw.__all__) - {"__version__"}
    assert public <= stubbed, public - stubbed
    for name in public:
        item = getattr(bovw, name)
        assert item.__doc__ and item.__doc__.strip(), name
        for attribute, member in vars(item).items() if isinstance(item, type) else []:
            if attribute.startswith("_") or not (callable(member) or isinstance(member, property)):
                continue
            assert getattr(member, "__doc__", None), "%s.%s has no docstring" % (name, attribute)

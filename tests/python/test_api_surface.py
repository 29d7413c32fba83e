"""The public Python surface explains itself: docstrings everywhere, reprs that are not the default."""

import inspect

import gauntlet
import pytest


def public_names():
    for name in gauntlet.__all__:
        obj = getattr(gauntlet, name)
        yield name, obj
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if callable(member) or isinstance(member, property):
                    yield f"{name}.{attr}", member


@pytest.mark.parametrize("name, obj", list(public_names()), ids=[n for n, _ in public_names()])
def test_every_public_name_has_a_docstring(name, obj):
    doc = inspect.getdoc(obj)
    assert doc and doc.strip() and "Unspecified run-time error" not in doc, f"{name} has no docstring"


def test_every_public_class_has_its_own_repr():
    default = object.__repr__
    for name in gauntlet.__all__:
        cls = getattr(gauntlet, name)
        if inspect.isclass(cls) and not issubclass(cls, BaseException):
            assert cls.__repr__ is not default, f"{name} has the default repr"


def test_the_core_stubs_match_the_built_module():
    """python/gauntlet/_core.pyi is what tools/gen_core_stubs.py makes of the module now."""
    import importlib.util

    from conftest import REPO
    spec = importlib.util.spec_from_file_location("gen_core_stubs", REPO / "tools" / "gen_core_stubs.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    stub = REPO / "python" / "gauntlet" / "_core.pyi"
    assert stub.read_text() == tool.stub_text(gauntlet._core), \
        "stale stubs: run PYTHONPATH=python /usr/bin/python3 tools/gen_core_stubs.py"
    assert (REPO / "python" / "gauntlet" / "py.typed").exists()

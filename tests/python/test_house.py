"""The Python package's house rules, as tests/layer checks the C++ layers: no module imports another
module's private name, and no import cycle between modules (imports inside functions count, and an
import from a sub-package counts as one from every module its __init__ takes names from)."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "gauntlet"


def modules(root: pathlib.Path) -> dict:
    """Dotted module name -> file, for every .py below ``root`` (and .pyi: the stub of a compiled one)."""
    found = {}
    for f in sorted(root.rglob("*.py*"), key=lambda f: f.suffix == ".py"):  # a .py wins over its stub
        if f.suffix not in (".py", ".pyi"):
            continue
        parts = list(f.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = f
    return found


def imports(name: str, file: pathlib.Path, known: dict):
    """(imported module, imported name or None) for each import of the package's own modules."""
    package = name if file.stem == "__init__" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(file.read_text(), str(file))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                if f"{target}.{alias.name}" in known:
                    yield f"{target}.{alias.name}", None
                elif target in known:
                    yield target, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name, None


def house(root: pathlib.Path):
    """(private imports, cycles) of the package at ``root``."""
    known = modules(root)
    private, edges = [], {}
    for name, file in known.items():
        edges[name] = set()
        for target, imported in imports(name, file, known):
            if target != name:
                edges[name].add(target)
            if imported and imported.startswith("_") and not imported.startswith("__") and imported != "_core":
                private.append(f"{name} imports {target}.{imported}")
    inits = {n for n, f in known.items() if f.stem == "__init__"}

    def expand(target, seen=()):  # a package's __init__ stands for the modules it imports from
        if target not in inits:
            return {target}
        out = set()
        for t in edges[target] - set(seen):
            out |= expand(t, (*seen, target))
        return out

    graph = {n: set().union(*[expand(t) for t in ts]) - {n} if ts else set()
             for n, ts in edges.items() if n not in inits}
    return private, strongly_connected(graph)


def strongly_connected(graph: dict) -> list:
    """Tarjan's components of more than one module: the import cycles."""
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_module_imports_a_private_name_of_another():
    private, _ = house(PACKAGE)
    assert private == []


def test_no_import_cycle_between_modules():
    _, cycles = house(PACKAGE)
    assert cycles == []


@pytest.fixture
def planted(tmp_path):
    """A small package with one private import and one cycle through a sub-package's __init__."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("def f():\n    from .sub import g\n    return g\n")
    (root / "sub" / "__init__.py").write_text("from .b import g\n")
    (root / "sub" / "b.py").write_text("from ..a import f\nfrom ..c import _hidden\ndef g():\n    return f\n")
    (root / "c.py").write_text("_hidden = 1\n")
    return root


def test_the_check_finds_a_planted_private_import_and_cycle(planted):
    private, cycles = house(planted)
    assert private == ["pkg.sub.b imports pkg.c._hidden"]
    assert cycles == [["pkg.a", "pkg.sub.b"]]

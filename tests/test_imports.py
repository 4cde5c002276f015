"""Imports flow one way: up the layers engine <- fifthave_env <- agents <- train (never down a layer: ``agents``
plays trained agents with numpy alone and never imports ``train``), and no import cycle among the modules.

The graph is read from the source (``ast``), so imports inside functions count too: a
cycle hidden behind a lazy import is still a pair of modules that need each other.
"""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("train", "agents", "fifthave_env")


def module_files():
    found = {}
    for package in PACKAGES:
        for directory, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py"):
                    relative = os.path.relpath(os.path.join(directory, name), ROOT)[:-3].split(os.sep)
                    if relative[-1] == "__init__":
                        relative = relative[:-1]
                    found[".".join(relative)] = os.path.join(directory, name)
    return found


def imported_modules(module, path, known):
    """Our modules that ``module`` imports anywhere in its source (``from pkg import name`` counts
    ``pkg.name`` when that is a module, else ``pkg``)."""
    is_package = path.endswith("__init__.py")
    package = module if is_package else module.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:  # "fifthave_env.engine.game.X" -> the module that defines it
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
    return targets


def find_cycle(graph):
    """One cycle of ``graph`` (module -> imported modules) as a list of modules, or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target, stack)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def import_graph():
    files = module_files()
    graph = {}
    for module, path in files.items():
        # A package's __init__ re-exporting its submodules is not an edge back from them.
        targets = imported_modules(module, path, files)
        graph[module] = {t for t in targets if not t.startswith(module + ".")} if path.endswith("__init__.py") else \
            {t for t in targets if not module.startswith(t + ".")}
    return graph


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    graph = import_graph()
    assert "train.selfplay" in graph["train.train"]  # the graph sees relative imports
    assert "agents.models" in graph["agents.tournament"]  # ... and imports inside functions
    graph["train.checkpoint"].add("train.train")
    assert find_cycle(graph) is not None


LAYERS = ("fifthave_env.engine", "fifthave_env", "agents", "train")
"""Lowest first: a module may import its own layer and those below it."""


def layer(module):
    """The rank of the most specific layer ``module`` belongs to (``fifthave_env.engine.game``: the engine)."""
    matching = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return LAYERS.index(max(matching, key=len))


def imports_up_the_layers(graph):
    """``(importer, imported)`` pairs where a module imports one of a higher layer."""
    return sorted((module, target) for module, targets in graph.items() for target in targets
                  if layer(target) > layer(module))


def test_imports_only_go_down_the_layers():
    wrong = imports_up_the_layers(import_graph())
    assert not wrong, "imports from a higher layer (engine <- fifthave_env <- agents <- train): " + ", ".join(
        f"{a} imports {b}" for a, b in wrong)


def test_the_layer_check_finds_an_import_up_the_layers():
    graph = import_graph()
    assert layer("fifthave_env.engine.game") == 0 and layer("fifthave_env.observation") == 1
    assert layer("agents.learned") == 2 and layer("train.rllib.agent") == 3
    graph["agents.tournament"].add("train.policy_agent")  # what agent_factory did before the agent file
    assert imports_up_the_layers(graph) == [("agents.tournament", "train.policy_agent")]
    graph = import_graph()
    graph["fifthave_env.engine.game"].add("fifthave_env.observation")
    assert imports_up_the_layers(graph) == [("fifthave_env.engine.game", "fifthave_env.observation")]

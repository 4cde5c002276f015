"""Imports flow one way: up the layers engine <- fifthave_env <- agents <- train (never down a layer: ``agents``
plays trained agents with numpy alone and never imports ``train``), and no import cycle among the modules.

The graph is read from the source (``ast``), so imports inside functions count too: a
cycle hidden behind a lazy import is still a pair of modules that need each other.
"""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = {"fifthave": "fifthave", "fifthave.train": "train", "fifthave.agents": "agents", "fifthave_env": "fifthave_env"}
"""Import name -> folder: ``agents/`` and ``train/`` install as ``fifthave.agents`` and ``fifthave.train``."""


def module_files():
    found = {}
    for package, folder in PACKAGES.items():
        for directory, subfolders, files in os.walk(os.path.join(ROOT, folder)):
            if package == "fifthave":
                subfolders.clear()  # its agents/ and train/ are the links to the folders above
            for name in files:
                if name.endswith(".py"):
                    relative = os.path.relpath(os.path.join(directory, name), os.path.join(ROOT, folder))
                    parts = [package] + [p for p in relative[:-3].split(os.sep) if p != "__init__"]
                    found[".".join(parts)] = os.path.join(directory, name)
    return found


def imported_modules(module, path, known):
    """Our modules that ``module`` imports anywhere in its source (``from pkg import name`` counts
    ``pkg.name`` when that is a module, else ``pkg``), except under ``if TYPE_CHECKING:``: those imports
    never run (the type checker's view of the engine's role modules, which ``game`` imports)."""
    is_package = path.endswith("__init__.py")
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(open(path).read(), path)
    guards = [node for node in ast.walk(tree)
              if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")]
    type_checking_only = {id(inner) for guard in guards for statement in guard.body for inner in ast.walk(statement)}
    targets = set()
    for node in ast.walk(tree):
        if id(node) in type_checking_only:
            continue
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
    assert "fifthave.train.selfplay" in graph["fifthave.train.train"]  # the graph sees relative imports
    assert "fifthave.agents.models" in graph["fifthave.agents.tournament"]  # ... and imports inside functions
    graph["fifthave.train.checkpoint"].add("fifthave.train.train")
    assert find_cycle(graph) is not None


LAYERS = ("fifthave_env.engine", "fifthave_env", "fifthave.agents", "fifthave.train", "fifthave")
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
    assert layer("fifthave.agents.learned") == 2 and layer("fifthave.train.rllib.agent") == 3
    graph["fifthave.agents.tournament"].add("fifthave.train.policy_agent")  # what agent_factory did before the agent file
    assert imports_up_the_layers(graph) == [("fifthave.agents.tournament", "fifthave.train.policy_agent")]
    graph = import_graph()
    graph["fifthave_env.engine.game"].add("fifthave_env.observation")
    assert imports_up_the_layers(graph) == [("fifthave_env.engine.game", "fifthave_env.observation")]


def top_level_imports(path):
    names = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_our_code_imports_agents_and_train_through_the_namespace():
    # A plain "import agents" works in a checkout but not in an install (no top-level agents there).
    scripts = [os.path.join(ROOT, "scripts", n) for n in os.listdir(os.path.join(ROOT, "scripts")) if n.endswith(".py")]
    tests = [os.path.join(d, n) for d, _, files in os.walk(os.path.join(ROOT, "tests")) for n in files if n.endswith(".py")]
    wrong = sorted(os.path.relpath(path, ROOT) for path in list(module_files().values()) + scripts + tests
                   if top_level_imports(path) & {"agents", "train"})
    assert not wrong, "import fifthave.agents / fifthave.train, not agents / train: " + ", ".join(wrong)


def test_an_install_has_no_generic_top_level_names():
    import tomllib

    setuptools = pytest.importorskip("setuptools")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        include = tomllib.load(f)["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = setuptools.find_packages(ROOT, include=include)
    assert {p.split(".")[0] for p in packages} == {"fifthave", "fifthave_env"}
    assert {"fifthave.agents", "fifthave.agents.web", "fifthave.train", "fifthave.train.rllib"} <= set(packages)

"""Opponents for ``FifthAvenueEnv``: scripted agents by name, the self-play pool and the PFSP league.

The samplers are picklable callables ``(rng, count) -> list of agents`` that the
env calls at every reset (in the game worker processes of ``fifthave.train.vec_env``), so
each game draws its opponents from the env's seeded generator. Checkpoints hold
them as plain data (``opponents_to_data`` / ``opponents_from_data``, which checks
every field), never pickled: a checkpoint is untrusted input.
"""

import math

from fifthave.agents.registry import check_agent_names
from fifthave.agents.tournament import agent_factory
from fifthave_env.engine import checks

from .policy_agent import PolicyFactory

SNAPSHOT_PREFIX = "snapshot@"


def _checkpoint_path(name, value):
    if not (isinstance(value, str) and value.endswith(".zip")):
        raise checks.InvalidValueError(f"{name} must be a checkpoint path (.zip), got {checks.shown(value)}")
    return value


class ScriptedOpponents:
    """Each opponent seat plays an agent drawn uniformly from ``names`` (repeat a name to weight it);
    the names are those of ``fifthave.agents.registry.AGENT_FACTORIES``."""

    def __init__(self, names):
        self.names = list(names)
        self.factories = [agent_factory(name) for name in names]  # unknown names fail here, not in a worker

    def __call__(self, rng, count):
        return [self.factories[rng.integers(len(self.factories))]() for _ in range(count)]

    def to_data(self):
        return {"kind": "scripted", "names": self.names}

    @classmethod
    def from_data(cls, name, data):
        check_agent_names(f"{name}.names", data["names"])
        return cls(data["names"])


class PoolOpponents:
    """Each opponent seat is, with probability ``scripted_fraction`` (or always, with an empty pool),
    a scripted agent from ``scripted_names``, else a past policy drawn uniformly from ``pool_paths``."""

    def __init__(self, scripted_names, pool_paths, scripted_fraction, deterministic=False):
        self.scripted = ScriptedOpponents(scripted_names)
        self.pool_paths = list(pool_paths)
        self.scripted_fraction = scripted_fraction
        self.deterministic = deterministic

    def __call__(self, rng, count):
        chosen = []
        for _ in range(count):
            if not self.pool_paths or rng.random() < self.scripted_fraction:
                chosen.extend(self.scripted(rng, 1))
            else:
                path = self.pool_paths[rng.integers(len(self.pool_paths))]
                chosen.append(PolicyFactory(path, self.deterministic)())
        return chosen

    def to_data(self):
        return {"kind": "pool", "scripted_names": self.scripted.names, "pool_paths": self.pool_paths,
                "scripted_fraction": self.scripted_fraction, "deterministic": self.deterministic}

    @classmethod
    def from_data(cls, name, data):
        fraction = checks.real(f"{name}.scripted_fraction", data["scripted_fraction"], 0.0, 1.0)
        paths = [_checkpoint_path(f"{name}.pool_paths[{i}]", path)
                 for i, path in enumerate(checks.sequence(f"{name}.pool_paths", data["pool_paths"]))]
        check_agent_names(f"{name}.scripted_names", data["scripted_names"])
        return cls(data["scripted_names"], paths, fraction, checks.boolean(f"{name}.deterministic",
                                                                           data["deterministic"]))


class LeagueOpponents:
    """One entry of the league (``fifthave.train.league``) per game, drawn with ``weights``, plays every opponent seat:
    a scripted agent (its name as ``spec``) or a snapshot (``spec`` its checkpoint, label ``snapshot@STEP``)."""

    def __init__(self, labels, specs, weights):
        self.labels = list(labels)
        self.specs = list(specs)
        self.weights = [float(w) for w in weights]
        self.factories = [PolicyFactory(spec, name=label) if label.startswith(SNAPSHOT_PREFIX)
                          else agent_factory(spec) for label, spec in zip(self.labels, self.specs)]

    def __call__(self, rng, count):
        index = int(rng.choice(len(self.labels), p=self.weights))
        agents = [self.factories[index]() for _ in range(count)]
        for agent in agents:
            agent.name = self.labels[index]  # what the env reports in info["opponents"]
        return agents

    def to_data(self):
        return {"kind": "league", "labels": self.labels, "specs": self.specs, "weights": self.weights}

    @classmethod
    def from_data(cls, name, data):
        labels = checks.sequence(f"{name}.labels", data["labels"])
        specs = checks.sequence(f"{name}.specs", data["specs"], len(labels))
        weights = [checks.real(f"{name}.weights[{i}]", w)
                   for i, w in enumerate(checks.sequence(f"{name}.weights", data["weights"], len(labels)))]
        if not labels or min(weights) < 0 or not math.isclose(sum(weights), 1.0, abs_tol=1e-9):
            raise checks.InvalidValueError(f"{name}: a league needs at least one entry and weights >= 0 that sum "
                                           f"to 1, got {weights!r}")
        for i, (label, spec) in enumerate(zip(labels, specs)):
            if isinstance(label, str) and label.startswith(SNAPSHOT_PREFIX):
                _checkpoint_path(f"{name}.specs[{i}]", spec)
            elif label != spec:
                raise checks.InvalidValueError(f"{name}.labels[{i}]: a scripted entry is labelled with its agent "
                                               f"name ({spec!r}) and a snapshot {SNAPSHOT_PREFIX}STEP, got "
                                               f"{checks.shown(label)}")
            else:
                check_agent_names(f"{name}.specs[{i}]", [spec])
        return cls(labels, specs, weights)


SAMPLERS = {"scripted": ScriptedOpponents, "pool": PoolOpponents, "league": LeagueOpponents}
_FIELDS = {"scripted": ("names",), "pool": ("scripted_names", "pool_paths", "scripted_fraction", "deterministic"),
           "league": ("labels", "specs", "weights")}


def opponents_to_data(sampler):
    """``sampler`` (one of ``SAMPLERS``) as JSON data, for a checkpoint."""
    if type(sampler) not in SAMPLERS.values():
        raise TypeError(f"only the samplers of fifthave.train.opponents ({', '.join(c.__name__ for c in SAMPLERS.values())}) "
                        f"can be saved, got {sampler!r}")
    return sampler.to_data()


def opponents_from_data(name, data):
    """The sampler ``opponents_to_data`` described; ``InvalidValueError`` naming ``name`` and the field for data
    it would not write."""
    checks.mapping(name, data)
    kind = checks.choice(f"{name}.kind", data.get("kind"), tuple(SAMPLERS))
    checks.mapping(name, data, ("kind", *_FIELDS[kind]))
    return SAMPLERS[kind].from_data(name, data)

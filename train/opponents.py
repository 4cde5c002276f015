"""Opponents for ``FifthAvenueEnv``: scripted agents by name, and the self-play pool.

Both samplers are picklable callables ``(rng, count) -> list of agents`` that the
env calls at every reset (in the game worker processes of ``train.vec_env``), so
each game draws its opponents from the env's seeded generator.
"""

from agents.tournament import agent_factory

from .policy_agent import PolicyFactory


class ScriptedOpponents:
    """Each opponent seat plays an agent drawn uniformly from ``names`` (repeat a name to weight it);
    the names are those of ``agents.registry.AGENT_FACTORIES``."""

    def __init__(self, names):
        self.factories = [agent_factory(name) for name in names]  # unknown names fail here, not in a worker

    def __call__(self, rng, count):
        return [self.factories[rng.integers(len(self.factories))]() for _ in range(count)]


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

"""Fifth Avenue as a PettingZoo AEC environment, version 1: the observation adds derived views.

Everything but the observation is ``fifth_avenue_v0``: its docstring describes the game,
the action space, rewards, episode end and arguments, which are the same here.

## Observation Space

``Dict(observation=Box(0, 1000, (1409,), float32), action_mask=Box(0, 1, (147,), int8))``.
The vector is layout 1 of ``fifthave_env.observation``: the 1176 values of
``fifth_avenue_v0`` (same views, same order, same values), then ``DERIVED_VIEWS``,
features the seat could work out from what it sees, so nothing hidden (R30, R31):

- ``plot_value``, ``plot_points``: VP one skyscraper on each plot scores now, and what
  each plot's skyscrapers give their owner at a scoring now (R19);
- ``district_score``, ``district_lead``, ``district_deficit``, ``district_skyscrapers``:
  each seat's standing per district;
- ``build_value``: VP per scoring of one more skyscraper each seat builds in each district;
- ``districts_owned``, ``central_park_value``, ``projected_score`` (VP were the game to end now);
- ``bid_power``: the largest bid the seat's hand allows per color and build count (R1);
- ``max_bid``: the most each seat could bid per color (exact for the seat itself, an upper
  bound from known cards and public counts for the others).

``fifthave_env.observation.VIEWS`` documents every feature (``docs/observation.md``);
``observation.views(vector)`` splits a vector of either version into named arrays, and
``vector[:1176]`` is the ``fifth_avenue_v0`` observation of the same state.

## Version History

- v1: derived views appended to the observation (1176 -> 1409 values).
- v0: first release (``fifth_avenue_v0``, still available with its layout).
"""

from typing import Any

from . import fifth_avenue_v0

ENV_VERSION = 1


class raw_env(fifth_avenue_v0.raw_env):
    metadata = {**fifth_avenue_v0.raw_env.metadata, "name": "fifth_avenue_v1"}
    observation_layout = ENV_VERSION


def env(**kwargs: Any) -> raw_env:
    """The environment, checking every call itself (no generic wrappers needed)."""
    return raw_env(**kwargs)

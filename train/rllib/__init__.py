"""RLlib (Ray) for Fifth Avenue: a multi-agent env adapter, self-play training and the agent a checkpoint makes.

Needs the ``distributed`` extra (``pip install "fifthave[distributed]"``).

- ``fifthave.train.rllib.env.FifthAvenueMultiAgentEnv``: the AEC env as an RLlib ``MultiAgentEnv``.
- ``fifthave.train.rllib.train``: the ``fifthave.train.rllib`` command (PPO, one shared policy, self-play pool).
- ``fifthave.train.rllib.agent``: a checkpoint as an agent (``rllib:PATH`` in tournaments and the terminal game).
- ``fifthave.train.rllib.cluster``: starting or joining Ray with clear errors.
"""

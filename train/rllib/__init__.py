"""RLlib (Ray) for Fifth Avenue: a multi-agent env adapter, self-play training and the agent a checkpoint makes.

Needs the ``distributed`` extra (``pip install "fifthave[distributed]"``).

- ``train.rllib.env.FifthAvenueMultiAgentEnv``: the AEC env as an RLlib ``MultiAgentEnv``.
- ``train.rllib.train``: the ``fifthave-rllib`` command (PPO, one shared policy, self-play pool).
- ``train.rllib.agent``: a checkpoint as an agent (``rllib:PATH`` in tournaments and the terminal game).
- ``train.rllib.cluster``: starting or joining Ray with clear errors.
"""

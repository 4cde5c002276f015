"""fifthave: the Fifth Avenue board game as a reinforcement-learning environment.

One import namespace for everything the install puts on ``sys.path`` besides the environment itself:

- ``fifthave_env``: the rules engine (``fifthave_env.engine``, no RL import) and its adapters (PettingZoo AEC,
  Gymnasium, OpenSpiel). Its name is the project's own, so it stays a top-level package.
- ``fifthave.agents``: scripted, search and learned agents, tournaments, the bidding lab, the web app.
- ``fifthave.train``: training (MaskablePPO, self-play, cloning, candidate values, RLlib).

In the repository ``fifthave/agents`` and ``fifthave/train`` are links to the top-level ``agents/`` and
``train/`` folders; an install copies them under ``fifthave`` so that no package named ``agents`` or ``train``
(generic names that other distributions and users' own scripts use) lands in site-packages.
"""

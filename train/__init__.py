"""Training on FifthAvenue-v0: MaskablePPO against scripted agents or in self-play, evaluation, checkpoints."""

import os

# Torch's OpenMP threads sleep while they wait instead of spinning (set before torch is first imported): with
# ``torch_threads`` 2 the update uses both cores, and on a machine shared with other jobs a spinning thread that
# waits for a descheduled one made the update many times slower (measured: 8 s instead of 1.4 s per update).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

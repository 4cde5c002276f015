"""Training on FifthAvenue-v0 (or -v1): MaskablePPO against scripted agents or in self-play, evaluation, checkpoints."""

import os

# Torch's OpenMP threads spin briefly, then sleep, while they wait (set before torch is first imported): with two
# update threads, threads that sleep at once (OMP_WAIT_POLICY=PASSIVE) made the update slower than one thread, and
# threads that spin long made it several times slower on a machine shared with other jobs. The update also
# falls back to one thread where two are slower (``fifthave.train.ppo.PipelinedMaskablePPO._threads_for_update``).
os.environ.setdefault("GOMP_SPINCOUNT", "10000")

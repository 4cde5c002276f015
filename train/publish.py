"""Publish a run's newest checkpoint as a small playable policy file (the optimizer's state left out).

Command: ``python -m train.publish RUN_DIR OUT.zip``. The file keeps the
checkpoint's config, versions and step count (``fifthave.json``), so it plays as
``policy:OUT.zip`` in ``fifthave-tournament`` and ``fifthave-play``; a fresh
optimizer replaces Adam's moment estimates, which are two thirds of a checkpoint
and matter only to a run that continues training.
"""

import argparse
import sys

from sb3_contrib import MaskablePPO

from .checkpoint import latest_checkpoint, read_meta, save_checkpoint
from .config import config_from_dict


def publish(run_dir, out):
    path = latest_checkpoint(run_dir)
    if path is None:
        raise FileNotFoundError(f"{run_dir} holds no checkpoint (run_dir/checkpoints/ckpt_*.zip)")
    meta = read_meta(path)
    model = MaskablePPO.load(path, device="cpu")
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1),
                                              **policy.optimizer_kwargs)
    extra = {k: v for k, v in meta.items() if k not in ("config", "versions", "num_timesteps")}
    save_checkpoint(model, out, config_from_dict(meta["config"]), {**extra, "published_from": path})
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m train.publish", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("out")
    args = parser.parse_args(argv)
    source = publish(args.run_dir, args.out)
    print(f"published {source} as {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

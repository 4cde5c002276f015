"""Export trained agents to the one agent file every command plays (``fifthave.agents.agentfile``): numpy alone, no pickle.

Every training method writes one as it goes (``fifthave.train.train``, PPO and self-play: ``RUN_DIR/agent.npz``
at the end of the run; ``fifthave publish recipe --write-results``: ``OUT/policy.npz``; candidate values: ``values.npz``;
``fifthave.train.rllib``: ``agent.npz`` in every checkpoint directory). Files written in the older formats are
converted once with::

    python -m fifthave.train.export SOURCE [OUT.npz]

SOURCE: a MaskablePPO checkpoint or published policy (``.zip`` with ``fifthave.json``), a candidate-value
network (``values.pt``) or a ``fifthave.train.rllib`` checkpoint directory; OUT defaults to SOURCE with the
extension ``.npz`` (``DIR/agent.npz`` for a directory). Converting reads the torch weights with
``torch.load(..., weights_only=True)``, torch's restricted unpickler (tensors and plain containers only),
after the metadata beside them has been validated; only this command does that: playing reads the agent file.
"""

import argparse
import os
import sys

import numpy as np

import fifthave_env
from fifthave.agents.agentfile import AGENT_FILE, VALUE_PARTS, AgentFileError, candidate_width, is_agent_file, write_agent_file
from fifthave.agents.learned import ActorNet, NumpyValueNet
from fifthave_env.engine import safejson
from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.observation import OBS_SIZES


def _versions(**more):
    return {"fifthave": fifthave_env.__version__, "numpy": np.__version__, **more}


def write_policy(path, net, config, name, kind="policy", training=None, versions=None):
    """Write the policy network ``net`` (an ``fifthave.agents.learned.ActorNet``) trained with ``config`` (a dict holding
    num_players, board, observation_layout and, for sb3, advisers) as an agent file; returns its sha256."""
    architecture, arrays = net.to_arrays()
    advisers = list(config.get("advisers") or [])
    layout = config["observation_layout"]
    meta = {"kind": kind, "name": name, "num_players": config["num_players"], "board": config["board"],
            "observation_layout": layout, "advisers": advisers,
            "architecture": {"input": OBS_SIZES[layout] + len(advisers) * NUM_ACTIONS, "outputs": NUM_ACTIONS,
                             **architecture},
            "training": {"config": config, **(training or {})}, "versions": _versions(**(versions or {}))}
    return write_agent_file(path, meta, arrays)


def write_values(path, net, config, report=None, name="values", versions=None):
    """Write a candidate-value ensemble (an ``fifthave.agents.learned.NumpyValueNet``) trained with ``config`` (the
    ``CandidateValueConfig`` as a dict) as an agent file; returns its sha256."""
    architecture, arrays = net.to_arrays()
    layout = config["observation_layout"]
    meta = {"kind": "candidate-values", "name": name, "num_players": config["num_players"],
            "board": config["board"], "observation_layout": layout, "groups": list(config["groups"]),
            "played_groups": config.get("played_groups"), "advice": config.get("advice", True),
            **({"effects": True} if config.get("effects") else {}),  # absent in the older files
            **({"destinations": True} if config.get("destinations") else {}),
            **({"bid_destinations": True} if config.get("bid_destinations") else {}),
            "architecture": {"input": OBS_SIZES[layout],
                             "candidate_features": candidate_width(config.get("effects"), config.get("destinations")),
                             **architecture},
            "training": {"method": "candidate-values", "config": config, "report": report or {}},
            "versions": _versions(**(versions or {}))}
    return write_agent_file(path, meta, arrays)


# ---- the older formats -----------------------------------------------------------------------------

def export_checkpoint(checkpoint, out):
    """Convert a MaskablePPO checkpoint (or a published ``policy.zip``) into an agent file."""
    from .checkpoint import read_meta
    from .config import config_from_dict
    from .policy_agent import ActorNet as TorchActorNet, load_policy

    meta = read_meta(checkpoint)  # validated before any weights are read
    config = config_from_dict(dict(meta["config"])).to_dict()  # with the fields older files lack
    steps = meta["num_timesteps"]
    net = TorchActorNet(load_policy(checkpoint, meta))
    training = {"method": "sb3-maskableppo", "num_timesteps": steps, "exported_from": os.path.basename(checkpoint)}
    return write_policy(out, ActorNet(net.layers, net.advice_size), config, f"ppo@{steps}", training=training,
                        versions=meta["versions"])


VALUES_PT_FORMAT = "fifthave-candidate-values/2"  # what fifthave.train.values_agent wrote before the agent file


def load_values_pt(path):
    """``(NumpyValueNet, metadata)`` of a candidate-value network written as ``values.pt`` (a ``torch.save``
    dict of ``meta``, JSON text, and ``weights``, the bytes of the ensemble's state dict). Both levels are read
    with ``weights_only=True`` and checked; ``ValueError`` naming the file for anything else."""
    import io

    import torch

    try:
        blob = torch.load(path, weights_only=True)
        meta = safejson.loads(blob["meta"], "its metadata")
        if meta.get("format") != VALUES_PT_FORMAT:
            raise ValueError(f"format {meta.get('format')!r}, expected {VALUES_PT_FORMAT!r}")
        members = meta["config"]["ensemble"]
        if not isinstance(members, int) or not 1 <= members <= 64:
            raise ValueError(f"ensemble {members!r} out of range")
        state = torch.load(io.BytesIO(blob["weights"]), weights_only=True)
        net = NumpyValueNet([[state[f"members.{m}.{part}"].numpy().astype(np.float32).T.copy()
                              if part.endswith("weight") else state[f"members.{m}.{part}"].numpy().astype(np.float32)
                              for part in VALUE_PARTS] for m in range(members)])
        if len(state) != members * len(VALUE_PARTS):
            raise ValueError(f"{len(state)} tensors for {members} members of {len(VALUE_PARTS)}")
    except Exception as error:  # untrusted input: say what is wrong, never run its code
        raise ValueError(f"{path} is not a candidate-value network: {type(error).__name__}: {error}") from None
    return net, meta


def export_values(values_pt, out):
    """Convert a candidate-value network written as ``values.pt`` into an agent file (its shapes are checked
    against its config when the agent file is written)."""
    net, meta = load_values_pt(values_pt)
    return write_values(out, net, meta["config"], meta.get("report"), versions=meta.get("versions"))


def export_rllib(directory, out):
    """Convert a ``fifthave.train.rllib`` checkpoint directory (``actor.pt`` and ``meta.json``) into an agent file."""
    from .rllib.agent import load_actor

    net, meta = load_actor(directory)
    config = meta["config"]
    training = {"method": "rllib-ppo", "iteration": meta.get("iteration"), "env_steps": meta.get("env_steps"),
                "exported_from": os.path.basename(os.path.normpath(directory))}
    return write_policy(out, net, config, f"rllib@{meta.get('iteration', '?')}", kind="rllib-policy",
                        training=training, versions=meta.get("versions"))


def agent_file_of(source):
    """Where the agent file of ``source`` goes: ``ckpt_N.npz`` beside a checkpoint ``ckpt_N.zip`` (any file: its
    extension replaced), ``DIR/agent.npz`` in a checkpoint directory."""
    if os.path.isdir(source):
        return os.path.join(source, AGENT_FILE)
    return os.path.splitext(source)[0] + ".npz"


def export(source, out=None):
    """Convert ``source`` (any older format, recognised by its contents) into the agent file ``out``; returns
    ``(out, sha256)``."""
    import zipfile

    out = out or agent_file_of(source)
    if os.path.isdir(source):
        digest = export_rllib(source, out)
    elif is_agent_file(source):
        raise ValueError(f"{source} is already an agent file")
    elif zipfile.is_zipfile(source) and "fifthave.json" in zipfile.ZipFile(source).namelist():
        digest = export_checkpoint(source, out)
    elif os.path.isfile(source):
        digest = export_values(source, out)
    else:
        raise ValueError(f"{source} does not exist")
    return out, digest


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m fifthave.train.export", description=__doc__.split("\n\n")[0],
                                     epilog="Converting reads torch weights with torch.load(weights_only=True) "
                                            "(a restricted unpickler); playing the result never unpickles.")
    parser.add_argument("source", help="a MaskablePPO checkpoint .zip, a values.pt or a fifthave.train.rllib "
                                       "checkpoint directory")
    parser.add_argument("out", nargs="?", help="the agent file to write (default: SOURCE with .npz, or "
                                               f"DIR/{AGENT_FILE})")
    args = parser.parse_args(argv)
    try:
        out, digest = export(args.source, args.out)
    except (AgentFileError, ValueError, OSError) as error:
        sys.exit(f"python -m fifthave.train.export: {error}")
    print(f"wrote {out} (weights sha256 {digest}); play it as an agent named {out}")


if __name__ == "__main__":
    main()

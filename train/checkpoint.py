"""Checkpoints: a MaskablePPO zip plus ``fifthave.json`` (config, versions, progress), written atomically.

The zip is what ``MaskablePPO.save`` writes (policy, optimizer, hyperparameters),
with one more member, ``fifthave.json``: the run's ``TrainConfig``, the package,
environment, torch, stable-baselines3 and sb3-contrib versions, the env steps
done, and the run state a resumed run needs (the self-play pool). It is built in
memory, written to a temporary file beside the target and moved into place with
``os.replace``, so a crash leaves either the old file or the new one, never half
of one. sb3 ignores the extra member, so ``MaskablePPO.load`` reads it as usual.
"""

import io
import json
import os
import re
import zipfile

import sb3_contrib
import stable_baselines3
import torch

import fifthave_env
from fifthave_env import fifth_avenue_v0

META_NAME = "fifthave.json"
_CHECKPOINT_RE = re.compile(r"^ckpt_(\d+)\.zip$")


def versions():
    return {"fifthave": fifthave_env.__version__, "env_version": fifth_avenue_v0.ENV_VERSION,
            "gym_env_id": "FifthAvenue-v0", "torch": torch.__version__,
            "stable_baselines3": stable_baselines3.__version__, "sb3_contrib": sb3_contrib.__version__}


def atomic_write_bytes(path, data):
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def save_checkpoint(model, path, config, extra=None):
    """Save ``model`` with its config, versions, step count and ``extra`` run state to ``path``."""
    buffer = io.BytesIO()
    model.save(buffer)
    meta = {"config": config.to_dict(), "versions": versions(), "num_timesteps": int(model.num_timesteps),
            **(extra or {})}
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(META_NAME, json.dumps(meta, indent=2))
    atomic_write_bytes(path, buffer.getvalue())


def read_meta(path):
    """The ``fifthave.json`` of a checkpoint; a clear error for a file that is not one."""
    try:
        with zipfile.ZipFile(path) as archive:
            return json.loads(archive.read(META_NAME))
    except (zipfile.BadZipFile, KeyError) as err:
        raise ValueError(f"{path} is not a fifthave checkpoint (a MaskablePPO zip with {META_NAME}): {err}") from err


def checkpoint_path(run_dir, num_timesteps):
    return os.path.join(run_dir, "checkpoints", f"ckpt_{num_timesteps:010d}.zip")


def latest_checkpoint(run_dir):
    """The checkpoint of ``run_dir`` with the most env steps, or None."""
    directory = os.path.join(run_dir, "checkpoints")
    if not os.path.isdir(directory):
        return None
    found = [(int(m.group(1)), name) for name in os.listdir(directory) if (m := _CHECKPOINT_RE.match(name))]
    return os.path.join(directory, max(found)[1]) if found else None


# ---- run state: what a resumed run needs to continue bit for bit -----------------------------------

def generator_states():
    """The process-wide generators training draws from (numpy's legacy one, torch's, Python's), as JSON data."""
    import random

    import numpy as np

    name, keys, position, has_gauss, cached = np.random.get_state()
    version, python_state, gauss = random.getstate()
    return {"numpy": [name, keys.tolist(), int(position), int(has_gauss), float(cached)],
            "torch": torch.get_rng_state().tolist(),
            "python": [version, list(python_state), gauss]}


def restore_generator_states(states):
    """Put back what ``generator_states`` returned; a clear error (and nothing changed) for damaged data."""
    import random

    import numpy as np

    try:
        name, keys, position, has_gauss, cached = states["numpy"]
        numpy_state = (name, np.asarray(keys, dtype=np.uint32), position, has_gauss, cached)
        torch_state = torch.tensor(states["torch"], dtype=torch.uint8)
        version, python_state, gauss = states["python"]
        python_state = (version, tuple(python_state), gauss)
        saved_numpy, saved_torch, saved_python = np.random.get_state(), torch.get_rng_state(), random.getstate()
        try:
            np.random.set_state(numpy_state)
            torch.set_rng_state(torch_state)
            random.setstate(python_state)
        except Exception:
            np.random.set_state(saved_numpy)
            torch.set_rng_state(saved_torch)
            random.setstate(saved_python)
            raise
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"the checkpoint's generator states are damaged: {err}") from err


def weights_hash(policy):
    """SHA-256 of a policy's weights (every tensor of its state dict, in order, names included)."""
    import hashlib

    digest = hashlib.sha256()
    for name, tensor in policy.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


# ---- publication -----------------------------------------------------------------------------------

OPTIMIZER_MEMBER = "policy.optimizer.pth"
_RUN_ONLY_META = ("run_state", "pool")  # what only a resumed run needs


def export_policy(checkpoint, path):
    """Write a small copy of ``checkpoint`` for publication: the policy without the optimizer state,
    the games in progress and the pool (``PolicyAgent.load`` / ``policy:PATH`` read it; ``--resume``
    and ``init_from`` need the full checkpoint). Returns the size in bytes."""
    meta = read_meta(checkpoint)
    for key in _RUN_ONLY_META:
        meta.pop(key, None)
    meta["exported_from"] = os.path.basename(checkpoint)
    buffer = io.BytesIO()
    with zipfile.ZipFile(checkpoint) as source, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.namelist():
            if member not in (OPTIMIZER_MEMBER, META_NAME):
                target.writestr(member, source.read(member))
        target.writestr(META_NAME, json.dumps(meta, indent=2))
    atomic_write_bytes(path, buffer.getvalue())
    return len(buffer.getvalue())

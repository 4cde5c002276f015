"""Checkpoints: a MaskablePPO zip plus ``fifthave.json`` (config, versions, progress), written atomically.

The zip is what ``MaskablePPO.save`` writes (policy, optimizer, hyperparameters),
with one more member, ``fifthave.json``: the run's ``TrainConfig``, the package,
environment, torch, stable-baselines3 and sb3-contrib versions, the env steps
done, and the run state a resumed run needs (the self-play pool). It is built in
memory, written to a temporary file beside the target and moved into place with
``os.replace``, so a crash leaves either the old file or the new one, never half
of one.

A checkpoint is untrusted input. ``read_meta`` checks the archive's CRCs, that
the sb3 members are there and that ``fifthave.json`` holds a valid config,
versions, step count and pool, and refuses anything else with a
``CheckpointError`` naming the file and what is wrong. Nothing is ever unpickled
from a checkpoint: sb3's ``data`` member (cloudpickled objects, kept so that sb3's
own tools read our files) is never read; networks are built from the validated
config, and ``read_state_dict`` reads their tensors with ``torch.load(...,
weights_only=True)`` (tensors and plain containers only), which
``load_module_state`` and ``load_optimizer_state`` check against the network.
Each checkpoint gets ``ckpt_N.zip.sha256`` beside it once complete (``fifthave.train.manifest``); ``--resume``
reads only a checkpoint that matches it. A ``kill -9`` during a write can leave a ``.ckpt_*.zip.tmp-PID`` file behind;
``remove_stale_temporaries`` deletes those whose writer is gone, and
``newest_intact_checkpoint`` skips (with a warning) checkpoints that do not read.
"""

import io
import json
import os
import re
import time
import warnings
import zipfile
import zlib

import sb3_contrib
import stable_baselines3
import torch

import fifthave_env
from fifthave_env.runtime import atomic_write_bytes, process_exists

from fifthave_env.engine import safejson

from .config import config_from_dict
from .manifest import ManifestError, verify_file, write_file_manifest

META_NAME = "fifthave.json"
SB3_MEMBERS = ("data", "policy.pth")
_CHECKPOINT_RE = re.compile(r"^ckpt_(\d+)\.zip$")
_TEMPORARY_RE = re.compile(r"^\..+\.tmp-(\d+)$")
STALE_SECONDS = 3600
"""A temporary file older than this is stale even if a process with its PID runs (PIDs are reused)."""


class CheckpointError(ValueError):
    """A file that is not an intact fifthave checkpoint; the message names the file and what is wrong."""


def versions(config):
    """The versions a run of ``config`` depends on (its env's among them)."""
    return {"fifthave": fifthave_env.__version__, "env_version": config.observation_layout,
            "gym_env_id": f"FifthAvenue-v{config.observation_layout}", "torch": torch.__version__,
            "stable_baselines3": stable_baselines3.__version__, "sb3_contrib": sb3_contrib.__version__}


def save_checkpoint(model, path, config, extra=None):
    """Save ``model`` with its config, versions, step count and ``extra`` run state to ``path``."""
    buffer = io.BytesIO()
    model.save(buffer)
    meta = {"config": config.to_dict(), "versions": versions(config), "num_timesteps": int(model.num_timesteps),
            **(extra or {})}
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(META_NAME, json.dumps(meta, indent=2))
    atomic_write_bytes(path, buffer.getvalue())
    write_file_manifest(path)  # after the checkpoint is complete: --resume reads only checkpoints it matches


def read_meta(path):
    """The validated ``fifthave.json`` of the checkpoint at ``path``; ``CheckpointError`` for a file that is
    not an intact checkpoint (truncated, corrupt, without the sb3 members, or with bad metadata)."""
    try:
        with zipfile.ZipFile(path) as archive:
            damaged = archive.testzip()
            if damaged is not None:
                raise CheckpointError(f"{path}: member {damaged!r} is corrupt (CRC mismatch)")
            names = set(archive.namelist())
            missing = [name for name in (*SB3_MEMBERS, META_NAME) if name not in names]
            if missing:
                raise CheckpointError(f"{path} is not a fifthave checkpoint (a MaskablePPO zip with {META_NAME}): "
                                      f"missing {', '.join(missing)}")
            text = archive.read(META_NAME)
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        raise CheckpointError(f"{path} is not a fifthave checkpoint (a MaskablePPO zip with {META_NAME}): "
                              f"{err}") from err
    except OSError as err:
        raise CheckpointError(f"cannot read the checkpoint {path}: {err.strerror or err}") from err
    try:
        meta = safejson.loads(text, f"{path}: {META_NAME}")
    except safejson.JSONInputError as err:
        raise CheckpointError(str(err)) from None
    validate_meta(meta, path)
    return meta


def validate_meta(meta, path):
    """Refuse ``fifthave.json`` contents that ``save_checkpoint`` would not write (keys it does not know are
    left alone, so that run state added later does not make older code refuse newer checkpoints)."""
    where = f"{path}: {META_NAME}"
    if not isinstance(meta, dict):
        raise CheckpointError(f"{where} must hold a JSON object, got {type(meta).__name__}")
    missing = [key for key in ("config", "versions", "num_timesteps") if key not in meta]
    if missing:
        raise CheckpointError(f"{where} lacks {', '.join(missing)} (it needs config, versions and num_timesteps)")
    steps = meta["num_timesteps"]
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise CheckpointError(f"{where}: num_timesteps must be an int >= 0, got {steps!r}")
    versions_ = meta["versions"]
    if not isinstance(versions_, dict) or not all(isinstance(v, (str, int)) for v in versions_.values()):
        raise CheckpointError(f"{where}: versions must be an object of versions (strings or ints), "
                              f"got {versions_!r}")
    if not isinstance(meta["config"], dict):
        raise CheckpointError(f"{where}: config must be an object (a TrainConfig), got {meta['config']!r}")
    try:
        config_from_dict(dict(meta["config"]))
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{where}: config is not a valid TrainConfig: {err}") from err
    pool = meta.get("pool", [])
    if not isinstance(pool, list) or not all(isinstance(p, str) and p.endswith(".zip") for p in pool):
        raise CheckpointError(f"{where}: pool must be a list of checkpoint paths (.zip), got {pool!r}")


POLICY_MEMBER = "policy.pth"
OPTIMIZER_MEMBER = "policy.optimizer.pth"


def read_state_dict(path, member):
    """The state dict in ``member`` of the checkpoint at ``path``, read with ``weights_only=True``: tensors and
    plain containers only, so a tampered file cannot run code. ``CheckpointError`` if it is missing or damaged."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = archive.read(member)
    except KeyError:
        raise CheckpointError(f"{path} has no {member}" + (" (a published policy has no optimizer state; use "
                              "the run's full checkpoint)" if member == OPTIMIZER_MEMBER else "")) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as err:
        raise CheckpointError(f"cannot read {member} of the checkpoint {path}: {err}") from err
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as err:  # damaged data fails in torch's reader in many ways (pickle, zip, runtime errors)
        raise CheckpointError(f"{path}: {member} is not a readable torch state dict: {err}") from err
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: {member} must hold a state dict, got {type(state).__name__}")
    return state


def load_module_state(module, path, member=POLICY_MEMBER):
    """Load the weights in ``member`` of the checkpoint at ``path`` into ``module`` (a network built from the
    checkpoint's config): every tensor it expects, with its shape, finite; ``CheckpointError`` otherwise."""
    state = read_state_dict(path, member)
    bad = [name for name, value in state.items()
           if not (isinstance(value, torch.Tensor) and value.is_floating_point() and bool(value.isfinite().all()))]
    if bad:
        raise CheckpointError(f"{path}: {member} must hold finite float tensors; not so: {', '.join(map(str, bad))}")
    try:
        module.load_state_dict(state)
    except RuntimeError as err:  # missing, unexpected or misshaped tensors
        raise CheckpointError(f"{path}: the weights in {member} do not fit the network of the config "
                              f"(its num_players, board, net_arch and advisers): {err}") from err


def load_optimizer_state(optimizer, path):
    """Load Adam's moments and step counts from the checkpoint at ``path`` into ``optimizer`` (built for the same
    network): each a finite tensor of its parameter's shape, else ``CheckpointError``. The hyperparameters
    (learning rate, betas, ...) stay those of the config, so a tampered file cannot set them."""
    saved = read_state_dict(path, OPTIMIZER_MEMBER)
    fresh = optimizer.state_dict()
    where = f"{path}: {OPTIMIZER_MEMBER}"
    groups = saved.get("param_groups")
    if (not isinstance(groups, list) or len(groups) != len(fresh["param_groups"])
            or any(not isinstance(g, dict) or g.get("params") != f["params"]
                   for g, f in zip(groups, fresh["param_groups"]))):
        raise CheckpointError(f"{where}: its parameter groups do not match the network its config describes")
    shapes = {index: p.shape for group, fresh_group in zip(optimizer.param_groups, fresh["param_groups"])
              for index, p in zip(fresh_group["params"], group["params"])}
    state = saved.get("state")
    if not isinstance(state, dict) or not set(state) <= set(shapes):
        raise CheckpointError(f"{where}: state must map parameter numbers 0 to {len(shapes) - 1} to Adam's state")
    for index, entry in state.items():
        expected = {"step": (), "exp_avg": shapes[index], "exp_avg_sq": shapes[index]}
        if not isinstance(entry, dict) or set(entry) != set(expected) or not all(
                isinstance(entry[k], torch.Tensor) and entry[k].is_floating_point() and entry[k].shape == shape
                and bool(entry[k].isfinite().all()) for k, shape in expected.items()):
            raise CheckpointError(f"{where}: the state of parameter {index} must hold step (a scalar), exp_avg "
                                  f"and exp_avg_sq (finite float tensors of shape {tuple(shapes[index])})")
    optimizer.load_state_dict({"state": state, "param_groups": fresh["param_groups"]})


def checkpoint_path(run_dir, num_timesteps):
    return os.path.join(run_dir, "checkpoints", f"ckpt_{num_timesteps:010d}.zip")


def _checkpoints(run_dir):
    """The checkpoints of ``run_dir``, newest (most env steps) first."""
    directory = os.path.join(run_dir, "checkpoints")
    if not os.path.isdir(directory):
        return []
    found = [(int(m.group(1)), name) for name in os.listdir(directory) if (m := _CHECKPOINT_RE.match(name))]
    return [os.path.join(directory, name) for _, name in sorted(found, reverse=True)]


def latest_checkpoint(run_dir):
    """The checkpoint of ``run_dir`` with the most env steps, or None (intact or not: see below)."""
    found = _checkpoints(run_dir)
    return found[0] if found else None


def newest_intact_checkpoint(run_dir):
    """``(path, meta)`` of the newest checkpoint of ``run_dir`` that matches its manifest (``fifthave.train.manifest``)
    and reads (``read_meta``), or ``(None, None)`` if there is none; every newer one skipped is named in a
    warning with what is wrong with it."""
    for path in _checkpoints(run_dir):
        try:
            verify_file(path)  # before anything of it is read (fifthave.train.manifest)
            return path, read_meta(path)
        except (CheckpointError, ManifestError) as err:
            warnings.warn(f"skipping checkpoint {path}: {err}", stacklevel=2)
    return None, None


def remove_stale_temporaries(directory, now=None):
    """Delete the ``.NAME.tmp-PID`` files a killed writer left in ``directory``: those whose process is gone,
    whose PID is this process's (a leftover of an earlier process with the same PID) or that are older than
    ``STALE_SECONDS``. A live process's fresh temporary is kept. Returns the paths removed."""
    if not os.path.isdir(directory):
        return []
    now = time.time() if now is None else now
    removed = []
    for name in os.listdir(directory):
        match = _TEMPORARY_RE.match(name)
        if not match:
            continue
        path = os.path.join(directory, name)
        pid = int(match.group(1))
        try:
            stale = (pid == os.getpid() or not process_exists(pid)
                     or now - os.path.getmtime(path) > STALE_SECONDS)
            if stale:
                os.remove(path)
                removed.append(path)
        except FileNotFoundError:
            pass  # its writer finished (or another cleaner got there) meanwhile
    return removed


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

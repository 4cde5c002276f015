"""RLlib's config: ``RLlibConfig`` (its flat form, in ``fifthave.train.config`` with the schema) and
``load_rllib_config(path, overrides, base=None)``, which reads a run config of method ``rllib`` or an old flat
one (unknown keys are an error) and applies overrides; ``config.to_dict()`` is what every checkpoint's
``meta.json`` stores.
"""

import dataclasses

from fifthave_env.engine import checks, safejson

from ..config import RLlibConfig, legacy_flat, run_config_from_dict

__all__ = ["RLlibConfig", "load_rllib_config"]


def load_rllib_config(path=None, overrides=None, *, base=None):
    """The config in a JSON file (or ``base``, a dict such as a checkpoint's stored config, or the defaults),
    with ``overrides`` (a dict; None values ignored) applied."""
    data = dict(base or {})
    if base is not None:  # a checkpoint's stored config, maybe with old names
        data = dict(legacy_flat(data, "rllib")[1], run_dir=base.get("run_dir", RLlibConfig.run_dir))
    if path is not None:
        data = safejson.load(path, f"the config file {path}")
        checks.mapping(f"the config in {path} (a run config of method rllib)", data)
        if "method" in data:
            data = run_config_from_dict(data).trainer_config(RLlibConfig.run_dir).to_dict()
        else:
            data = dict(legacy_flat(data, "rllib")[1], run_dir=data.get("run_dir", RLlibConfig.run_dir))
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    allowed = {f.name for f in dataclasses.fields(RLlibConfig)}
    unknown = set(data) - allowed
    if unknown:
        raise ValueError(f"unknown config keys {sorted(unknown)}; allowed: {sorted(allowed)}")
    return RLlibConfig(**data)

"""The exported agent file: one ``.npz`` a trained agent plays from with numpy alone, read without unpickling.

Every training method writes one (``fifthave.train.export``): PPO, self-play, the experiment, cloning (a policy
network), RLlib (``rllib-policy``, the same network), candidate values (``candidate-values``) and the iterated
self-play learner ``fifthave.train.generations`` (``action-values``: the same MLP, one value per action id). An agent
name that is a path to such a file plays it (``fifthave.agents.tournament.agent_factory``), as do ``policy:PATH``,
``rllib:PATH`` and ``values:PATH``.

The file is a zip archive, as ``numpy.savez`` writes: one ``.npy`` member per weight array (float32,
little-endian, C order) and a ``meta.json`` member::

    {"format": "fifthave-agent", "format_version": 1, "kind": "policy" | "rllib-policy" | "candidate-values"
                                                  | "action-values",
     "name": "...", "num_players": 4, "board": 5, "observation_layout": 1,
     "architecture": {...},          # what the arrays must be (see ARCHITECTURES below)
     "weights_sha256": "...",        # of the arrays (``weights_digest``)
     "training": {...}, "versions": {...}}   # the training config, report and library versions: not read to play

A ``candidate-values`` file also names the decision ``groups`` it learned and ``played_groups`` (null: all), and
may hold ``"advice": false``: the network plays every decision group with no scripted agent (absent: true), and
``"effects": true``: each candidate's features end with ``EFFECT_FEATURES`` columns of what it does on a
determinization (``fifthave.agents.learned.effect_features``; absent: false, the older files), and
``"destinations": true``: then with ``DESTINATION_FEATURES`` columns read from the observation
(``fifthave.agents.learned.destination_features``; observation layout 1 only; absent: false), and
``"bid_destinations": true``: the bid candidates' destination columns hold the auctioned location's (needs
``"destinations": true``; absent: false, zeros there).

``np.load(path)`` lists and reads the arrays for inspection (``unzip -p PATH meta.json`` shows the metadata).

Reading (``read_agent_file``) trusts nothing in the file: the metadata is parsed as bounded JSON and checked
(kind, players, board, layout, every layer width and the total parameter count within limits) *before* any
array is read; the archive must hold exactly the arrays the architecture names, each ``.npy`` header must
declare float32 of exactly the expected shape before its data is read, and the data's sha256 must match
the metadata. Nothing is unpickled (an object array is refused by its header; numpy's reader is not even
called), so a crafted file is refused with one ``AgentFileError`` naming the file and what is allowed.
"""

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fifthave_env.engine import checks
from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.engine.cards import NUM_KINDS
from fifthave_env.observation import OBS_SIZES
from fifthave_env.runtime import atomic_write_bytes

from .registry import AGENT_FACTORIES
from .search import DECISION_GROUPS, decision_kinds

FORMAT = "fifthave-agent"
FORMAT_VERSION = 1
META_MEMBER = "meta.json"
AGENT_FILE = "agent.npz"
"""The agent file's name in a run or checkpoint directory (``rllib:DIR`` reads ``DIR/agent.npz``)."""
KINDS = ("policy", "rllib-policy", "candidate-values", "action-values")
POLICY_KINDS = ("policy", "rllib-policy")
MLP_KINDS = POLICY_KINDS + ("action-values",)
"""Kinds whose network is one MLP from the observation to one output per action id (``policy_arrays``): a
policy's logits, or ``action-values``' value of every action (``fifthave.agents.learned.ActionValueAgent``, trained by
``fifthave.train.generations``)."""
ACTIVATIONS = ("tanh", "relu")

CANDIDATE_FEATURES = NUM_ACTIONS + NUM_KINDS + 9
"""Features of one candidate of a decision (``fifthave.agents.learned.candidate_features``)."""
EFFECT_FEATURES = 6
"""Columns ``fifthave.agents.learned.effect_features`` adds to each candidate's features (``"effects": true``)."""


DESTINATION_FEATURES = 16
"""Columns ``fifthave.agents.learned.destination_features`` adds after them (``"destinations": true``)."""


def candidate_width(effects: bool, destinations: bool = False) -> int:
    """Input width of a candidate-value network's candidate layer, with or without the effect and the destination
    features."""
    return CANDIDATE_FEATURES + EFFECT_FEATURES * bool(effects) + DESTINATION_FEATURES * bool(destinations)

MAX_META_BYTES = 1 << 20
MAX_WIDTH = 4096
"""Widest layer (and widest input) a file may declare."""
MAX_LAYERS = 16
MAX_MEMBERS = 64
"""Networks in a candidate-value ensemble."""
MAX_PARAMETERS = 1 << 25
"""Weights in one file (128 MB of float32); the committed models have 0.46M (policy-4p) and 1.5M (values-4p)."""
_NPY_HEADER_SLACK = 1 << 16  # a .npy header is under 200 bytes; numpy refuses ones over 10,000


class AgentFileError(ValueError):
    """A file that is not a valid exported agent file; the message names the file and what is allowed."""


# ---- architecture: which arrays a file holds ------------------------------------------------------

def policy_arrays(architecture: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """``{name: shape}`` of a policy network: ``layer{i}.weight`` (inputs x outputs) and ``layer{i}.bias``."""
    sizes = [architecture["input"], *architecture["hidden"]]
    shapes: dict[str, tuple[int, ...]] = {}
    for i, (inputs, outputs) in enumerate(zip(sizes, sizes[1:])):
        shapes[f"layer{i}.weight"], shapes[f"layer{i}.bias"] = (inputs, outputs), (outputs,)
    last = len(sizes) - 1
    shapes[f"layer{last}.weight"] = (sizes[-1] + architecture["advice"], architecture["outputs"])
    shapes[f"layer{last}.bias"] = (architecture["outputs"],)
    return shapes


VALUE_PARTS = ("state.0.weight", "state.0.bias", "state.2.weight", "state.2.bias", "candidate.weight",
               "candidate.bias", "head.1.weight", "head.1.bias", "head.3.weight", "head.3.bias")
"""The arrays of one member of a candidate-value ensemble, in the order ``fifthave.agents.learned.NumpyValueNet`` takes
them (weights as inputs x outputs)."""


def value_arrays(architecture: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """``{name: shape}`` of a candidate-value ensemble: ``member{m}.PART`` for each part of ``VALUE_PARTS``."""
    obs, hidden, head, features = (architecture[k] for k in ("input", "hidden", "head", "candidate_features"))
    part_shapes = ((obs, hidden), (hidden,), (hidden, hidden), (hidden,), (features, hidden), (hidden,),
                   (hidden, head), (head,), (head, 1), (1,))
    return {f"member{m}.{part}": shape for m in range(architecture["members"])
            for part, shape in zip(VALUE_PARTS, part_shapes)}


def _int_in(value, low, high):
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _check_architecture(kind, meta, where):
    """The ``{name: shape}`` the metadata's architecture declares, every size within limits; raise otherwise."""
    arch = meta.get("architecture")
    if not isinstance(arch, dict):
        raise AgentFileError(f"{where}: architecture must be an object, got {arch!r}"[:300])
    layout = meta["observation_layout"]
    if kind in MLP_KINDS:
        hidden, activations = arch.get("hidden"), arch.get("activations")
        advisers = meta.get("advisers", [])
        advice_input = len(advisers) * NUM_ACTIONS
        if not (isinstance(hidden, list) and len(hidden) <= MAX_LAYERS and all(_int_in(w, 1, MAX_WIDTH) for w in hidden)):
            raise AgentFileError(f"{where}: architecture.hidden must be a list of at most {MAX_LAYERS} layer widths "
                                 f"from 1 to {MAX_WIDTH}, got {hidden!r}"[:300])
        if not (isinstance(activations, list) and len(activations) == len(hidden)
                and all(a in ACTIVATIONS for a in activations)):
            raise AgentFileError(f"{where}: architecture.activations must name one of {ACTIVATIONS} per hidden "
                                 f"layer, got {activations!r}"[:300])
        expected = {"input": OBS_SIZES[layout] + advice_input, "outputs": NUM_ACTIONS}
        for key, value in expected.items():
            if arch.get(key) != value:
                raise AgentFileError(f"{where}: architecture.{key} must be {value} (observation layout {layout}, "
                                     f"{len(advisers)} advisers), got {arch.get(key)!r}"[:300])
        if arch.get("advice") not in (0, advice_input):
            raise AgentFileError(f"{where}: architecture.advice must be 0 or {advice_input} (the advisers' "
                                 f"block), got {arch.get('advice')!r}"[:300])
        shapes = policy_arrays(arch)
    else:
        members = arch.get("members")
        if not (_int_in(arch.get("hidden"), 1, MAX_WIDTH) and _int_in(arch.get("head"), 1, MAX_WIDTH)
                and _int_in(members, 1, MAX_MEMBERS)):
            raise AgentFileError(f"{where}: architecture.hidden and head must be widths from 1 to {MAX_WIDTH} and "
                                 f"members from 1 to {MAX_MEMBERS}, got {arch!r}"[:300])
        effects, destinations = meta.get("effects", False), meta.get("destinations", False)
        expected = {"input": OBS_SIZES[layout], "candidate_features": candidate_width(effects, destinations)}
        for key, value in expected.items():
            if arch.get(key) != value:
                raise AgentFileError(f"{where}: architecture.{key} must be {value} (observation layout {layout}, "
                                     f"effects {str(effects).lower()}, destinations {str(destinations).lower()}), "
                                     f"got {arch.get(key)!r}"[:300])
        shapes = value_arrays(arch)
    total = sum(int(np.prod(shape)) for shape in shapes.values())
    if total > MAX_PARAMETERS:
        raise AgentFileError(f"{where}: the architecture has {total:,} weights; at most {MAX_PARAMETERS:,} are "
                             "allowed")
    return shapes


def check_meta(meta: Any, where: str) -> dict[str, tuple[int, ...]]:
    """Refuse metadata ``write_agent_file`` would not write; returns ``{array name: shape}``."""
    if not isinstance(meta, dict):
        raise AgentFileError(f"{where}: {META_MEMBER} must hold a JSON object, got {type(meta).__name__}")
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise AgentFileError(f"{where}: format must be {FORMAT!r} version {FORMAT_VERSION}, got "
                             f"{meta.get('format')!r} version {meta.get('format_version')!r}"[:300])
    kind = meta.get("kind")
    if kind not in KINDS:
        raise AgentFileError(f"{where}: kind must be one of {KINDS}, got {kind!r}"[:300])
    try:
        checks.choice("num_players", meta.get("num_players"), (2, 3, 4))
        checks.choice("board", meta.get("board"), (5, 6))
    except ValueError as error:
        raise AgentFileError(f"{where}: {error}") from None
    if meta.get("observation_layout") not in OBS_SIZES or isinstance(meta.get("observation_layout"), bool):
        raise AgentFileError(f"{where}: observation_layout must be one of {sorted(OBS_SIZES)}, got "
                             f"{meta.get('observation_layout')!r}"[:300])
    if not isinstance(meta.get("name"), str) or len(meta["name"]) > 200:
        raise AgentFileError(f"{where}: name must be a string of at most 200 characters")
    if kind == "action-values":
        if meta.get("advisers", []):
            raise AgentFileError(f"{where}: an action-value network reads the observation alone (no advisers)")
    elif kind in POLICY_KINDS:
        advisers = meta.get("advisers", [])
        if not (isinstance(advisers, list) and len(advisers) <= 8 and all(a in AGENT_FACTORIES for a in advisers)):
            raise AgentFileError(f"{where}: advisers must be a list of at most 8 scripted agent names from "
                                 f"{sorted(AGENT_FACTORIES)}, got {advisers!r}"[:300])
    else:
        try:
            check_value_groups(meta.get("groups"), meta.get("played_groups"))
            check_advice(meta["groups"], meta.get("played_groups"), meta.get("advice", True))
            checks.boolean("effects", meta.get("effects", False))
            check_bid_destinations(meta.get("bid_destinations", False),
                                   check_destinations(meta.get("destinations", False), meta["observation_layout"]))
        except ValueError as error:
            raise AgentFileError(f"{where}: {error}") from None
    digest = meta.get("weights_sha256")
    if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        raise AgentFileError(f"{where}: weights_sha256 must be 64 lowercase hex digits")
    return _check_architecture(kind, meta, where)


def groups_played(groups: Sequence[str], played: Sequence[str] | None) -> Sequence[str]:
    """The decision groups a network trained on ``groups`` plays: ``played`` (a non-empty subset of them), or
    all of them if ``played`` is None."""
    if played is None:
        return groups
    if not isinstance(played, list) or not played or any(g not in groups for g in played):
        raise ValueError(f"played_groups must be None or a non-empty list from groups {groups!r}, got {played!r}")
    return played


def check_advice(groups: Sequence[str], played: Sequence[str] | None, advice: Any) -> bool:
    """``advice`` of a candidate-value network: a bool, and False (no scripted agent at play time) only for a
    network that plays every decision group (``ValueError`` otherwise)."""
    if not isinstance(advice, bool):
        raise ValueError(f"advice must be true or false, got {advice!r}"[:300])
    if not advice and sorted(groups_played(groups, played)) != sorted(DECISION_GROUPS):
        raise ValueError(f"a network without the heuristic's advice (advice false) plays every decision group "
                         f"{sorted(DECISION_GROUPS)}, got {list(groups_played(groups, played))!r}"[:300])
    return advice


def check_value_groups(groups: Any, played: Any) -> Sequence[str]:
    """The groups a candidate-value network plays; ``ValueError`` unless ``groups`` is a non-empty list of
    decision groups (``fifthave.agents.search.DECISION_GROUPS``) and ``played`` None or a subset of them."""
    if not isinstance(groups, list) or not groups or not all(isinstance(g, str) for g in groups):
        raise ValueError(f"groups must be a non-empty list of decision group names, got {groups!r}"[:300])
    decision_kinds(groups)
    return groups_played(groups, played)


def check_destinations(destinations: Any, observation_layout: int) -> bool:
    """``destinations`` as a bool; ``ValueError`` unless a bool, or if true with an observation layout other than 1
    (the destination features read its derived views)."""
    destinations = checks.boolean("destinations", destinations)
    if destinations and observation_layout != 1:
        raise checks.InvalidValueError(f"destinations need observation layout 1 (its derived views), got layout "
                                       f"{observation_layout}")
    return destinations


def check_bid_destinations(bid_destinations: Any, destinations: bool) -> bool:
    """``bid_destinations`` as a bool; ``ValueError`` unless a bool, or if true without ``destinations`` (it fills
    the bid candidates' rows of the destination columns, which only ``destinations`` adds)."""
    bid_destinations = checks.boolean("bid_destinations", bid_destinations)
    if bid_destinations and not destinations:
        raise checks.InvalidValueError("bid_destinations fill the destination columns of the bid candidates: they "
                                       "need destinations true")
    return bid_destinations


# ---- the weights' digest ---------------------------------------------------------------------------

def weights_digest(arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of ``{name: float32 array}``: every array in name order, its name, shape and bytes."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name], dtype="<f4")
        digest.update(f"{name}:{','.join(map(str, array.shape))};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


# ---- writing ---------------------------------------------------------------------------------------

def _member(name: str):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # the same weights give the same bytes
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def agent_file_bytes(meta: Mapping[str, Any], arrays: Mapping[str, Any]) -> bytes:
    """The bytes of an agent file of ``arrays`` (``{name: array}``, converted to float32) and ``meta`` (the
    metadata without ``format``, ``format_version`` and ``weights_sha256``, which are added). The result is
    checked as a reader would check it, so a writer cannot produce a file that does not load."""
    arrays = {name: np.ascontiguousarray(value, dtype="<f4") for name, value in arrays.items()}
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **meta, "weights_sha256": weights_digest(arrays)}
    shapes = check_meta(json.loads(json.dumps(meta)), "the agent file being written")
    declared = {name: tuple(shape) for name, shape in shapes.items()}
    given = {name: array.shape for name, array in arrays.items()}
    if given != declared:
        raise ValueError(f"the arrays {given} do not match the architecture's {declared}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(_member(META_MEMBER), json.dumps(meta, indent=1, sort_keys=True))
        for name in sorted(arrays):
            npy = io.BytesIO()
            np.lib.format.write_array(npy, arrays[name], allow_pickle=False)
            archive.writestr(_member(f"{name}.npy"), npy.getvalue())
    return buffer.getvalue()


def write_agent_file(path: str | os.PathLike[str], meta: Mapping[str, Any], arrays: Mapping[str, Any]) -> str:
    """Write an agent file atomically (``agent_file_bytes``); returns the weights' sha256."""
    data = agent_file_bytes(meta, arrays)
    atomic_write_bytes(path, data)
    return json.loads(zipfile.ZipFile(io.BytesIO(data)).read(META_MEMBER))["weights_sha256"]


# ---- reading ---------------------------------------------------------------------------------------

def is_agent_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a zip archive with a ``meta.json`` member (an agent file, valid or not)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return META_MEMBER in archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return False


def read_agent_file(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(meta, {name: float32 array})`` of the agent file at ``path``, everything checked (module docstring);
    ``AgentFileError`` naming the file and what is wrong otherwise."""
    where = str(path)
    try:
        size = os.path.getsize(path)
    except OSError as error:
        raise AgentFileError(f"cannot read the agent file {where}: {error.strerror or error}") from None
    if size > MAX_PARAMETERS * 4 + MAX_META_BYTES + (1 << 20):
        raise AgentFileError(f"{where}: {size:,} bytes is larger than any agent file may be "
                             f"(at most {MAX_PARAMETERS:,} float32 weights)")
    if not zipfile.is_zipfile(path):
        raise AgentFileError(f"{where} is not an agent file (an .npz zip archive written by training or by "
                             f"python -m fifthave.train.export); a values.pt of an older run is converted once with: "
                             f"python -m fifthave.train.export {where}")
    try:
        with zipfile.ZipFile(path) as archive:
            return _read_archive(archive, where)
    except AgentFileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError,
            RuntimeError) as error:  # zlib.error is an Exception subclass of neither: caught below
        raise AgentFileError(f"{where} is not an intact agent file (an .npz written by fifthave.train.export): "
                             f"{type(error).__name__}: {error}"[:400]) from None
    except Exception as error:  # damaged compressed data (zlib.error) and the like: a file, not a bug
        raise AgentFileError(f"{where} is not an intact agent file: {type(error).__name__}: {error}"[:400]) from None


def _read_archive(archive, where):
    infos = archive.infolist()
    names = [info.filename for info in infos]
    if META_MEMBER not in names:
        raise AgentFileError(f"{where} is not an agent file: it has no {META_MEMBER}. Training writes agent files "
                             f"(.npz); a file of an older format (an sb3 checkpoint .zip, a values.pt, an RLlib "
                             f"checkpoint directory) is converted once with: python -m fifthave.train.export {where}")
    if len(set(names)) != len(names) or len(names) > 1 + MAX_MEMBERS * len(VALUE_PARTS) + 2 * (MAX_LAYERS + 1):
        raise AgentFileError(f"{where}: {len(names)} members, some repeated or too many for an agent file")
    by_name = {info.filename: info for info in infos}
    if by_name[META_MEMBER].file_size > MAX_META_BYTES:
        raise AgentFileError(f"{where}: {META_MEMBER} is {by_name[META_MEMBER].file_size:,} bytes; at most "
                             f"{MAX_META_BYTES:,} are allowed")
    try:
        meta = json.loads(archive.read(META_MEMBER).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # ValueError: bad JSON, too many digits
        raise AgentFileError(f"{where}: {META_MEMBER} is not valid JSON within limits: "
                             f"{type(error).__name__}: {error}"[:300]) from None
    shapes = check_meta(meta, where)
    expected = {f"{name}.npy" for name in shapes} | {META_MEMBER}
    if set(names) != expected:
        extra, missing = sorted(set(names) - expected), sorted(expected - set(names))
        raise AgentFileError(f"{where}: the members must be exactly those its architecture names; "
                             f"unexpected {extra[:5]}, missing {missing[:5]}")
    arrays = {name: _read_npy(archive, by_name[f"{name}.npy"], shape, where) for name, shape in shapes.items()}
    if weights_digest(arrays) != meta["weights_sha256"]:
        raise AgentFileError(f"{where}: the weights do not match their weights_sha256 (a damaged or altered file)")
    return meta, arrays


def _read_npy(archive, info, shape, where):
    """One float32 array of ``shape`` from a ``.npy`` member, its header checked before its data is read."""
    nbytes = 4 * int(np.prod(shape))
    if info.file_size > nbytes + _NPY_HEADER_SLACK:
        raise AgentFileError(f"{where}: {info.filename} is {info.file_size:,} bytes, more than an array of shape "
                             f"{shape} needs")
    with archive.open(info) as member:
        try:
            version = np.lib.format.read_magic(member)
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)(member)
        except ValueError as error:
            raise AgentFileError(f"{where}: {info.filename} is not a .npy array: {error}"[:300]) from None
        declared_shape, fortran_order, dtype = header
        if dtype != np.dtype("<f4") or fortran_order or tuple(declared_shape) != tuple(shape):
            raise AgentFileError(f"{where}: {info.filename} must be a float32 C-order array of shape {shape}, "
                                 f"got {dtype} of shape {declared_shape}" + (" (Fortran order)" if fortran_order
                                                                              else ""))
        data = member.read(nbytes + 1)
    if len(data) != nbytes:
        raise AgentFileError(f"{where}: {info.filename} holds {len(data):,} bytes of data, expected {nbytes:,}")
    array = np.frombuffer(data, dtype="<f4").reshape(shape)
    if not np.isfinite(array).all():
        raise AgentFileError(f"{where}: {info.filename} holds values that are not finite")
    return array.astype(np.float32)  # native order, writable

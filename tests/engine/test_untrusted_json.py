"""JSON from a user's file is read within limits (engine.safejson): a file nested 100,000 deep, larger than
the limit, or with a 5,000-digit number gets one clear error naming the file, never a RecursionError, at
every place we read one (issues 39, 40): recorded games (fifthave replay), --resummarize, the --config of
fifthave.train.train, fifthave.train.rllib and the candidate-value trainer, and the metadata of saved models.
The files also carry payloads (a base64 pickle, a jsonpickle-style object) that would create a file if
anything ran them; it never exists afterwards."""

import base64
import io
import os
import pickle
import zipfile

import pytest

from fifthave_env.engine import safejson

DEEP = "[" * 100_000 + "]" * 100_000


class _WritesMarker:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return os.system, (f"touch {self.path}",)


def hostile_texts(marker):
    pickled = base64.b64encode(pickle.dumps(_WritesMarker(marker))).decode()
    return [
        (DEEP, "nested too deeply"),
        ('{"a": ' + "[" * 50 + "1" + "]" * 50 + "}", "nested too deeply"),
        ('{"a": ' + "9" * 5000 + "}", "is not valid JSON"),
        ("{not json", "is not valid JSON"),
        ('{"py/reduce": [{"py/function": "os.system"}, {"py/tuple": ["touch ' + str(marker) + '"]}], "b": "'
         + pickled + '"}', None),  # plain data to us: refused by the reader's own checks, if at all
    ]


def test_safejson_limits_name_the_source(tmp_path):
    for text, match in hostile_texts(tmp_path / "ran")[:4]:
        with pytest.raises(safejson.JSONInputError, match=rf"^the file x.json\S* .*{match}"):
            safejson.loads(text, "the file x.json")
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(safejson.MAX_BYTES + 1)  # sparse: measured before it is read
    with pytest.raises(safejson.JSONInputError, match=f"big.json holds {safejson.MAX_BYTES + 1:,} bytes; at most"):
        safejson.load(big)
    assert safejson.loads('{"a": [1, {"b": null}]}', "x") == {"a": [1, {"b": None}]}
    assert safejson.loads("[" * 32 + "]" * 32, "x") is not None
    with pytest.raises(safejson.JSONInputError, match=r"x\[0\]\[0\] is nested too deeply: at most 2"):
        safejson.loads("[[[1]]]", "x", max_depth=2)


def _readers(tmp_path):
    """(name, read(path) for a file holding the text, how the error names the file) of every place that reads
    a user's JSON file."""
    from fifthave.agents import tournament
    from fifthave_env import replay
    from fifthave.train.config import load_config

    readers = [
        ("recorded game", replay.GameRecord.load, "input.json"),
        ("fifthave replay", lambda path: replay.main([str(path), str(tmp_path / "out.gif")]), "input.json"),
        ("--resummarize", lambda path: tournament.main(["--resummarize", str(path)]), "input.json"),
        ("python -m fifthave.train.train --config", load_config, "input.json"),
    ]
    try:
        from fifthave.train.rllib.config import load_rllib_config
        readers.append(("load_rllib_config", load_rllib_config, "input.json"))
    except ImportError:
        pass
    from fifthave.train import checkpoint, export, run

    readers.append(("fifthave train CONFIG", lambda path: run.main([str(path), "--out", str(tmp_path / "run")]),
                    "input.json"))

    def sb3_zip(path):
        archive = tmp_path / "model.zip"
        with zipfile.ZipFile(archive, "w") as z:
            for member in checkpoint.SB3_MEMBERS:
                z.writestr(member, b"")
            z.writestr(checkpoint.META_NAME, path.read_bytes())
        return checkpoint.read_meta(archive)

    def values_file(path):
        import torch
        buffer = io.BytesIO()
        torch.save({"meta": path.read_text(), "weights": b"\0"}, buffer)
        (tmp_path / "values.pt").write_bytes(buffer.getvalue())
        return export.load_values_pt(tmp_path / "values.pt")

    readers += [("checkpoint metadata", sb3_zip, "model.zip: fifthave.json"),
                ("candidate-value metadata", values_file, "values.pt")]
    try:
        from fifthave.train.rllib import agent as rllib_agent
    except ImportError:
        return readers

    def rllib_meta(path):
        directory = tmp_path / "iter_000001"
        directory.mkdir(exist_ok=True)
        (directory / rllib_agent.META_FILE).write_bytes(path.read_bytes())
        (directory / rllib_agent.ACTOR_FILE).write_bytes(b"")
        return rllib_agent._load_torch_actor(str(directory))

    return readers + [("rllib checkpoint meta.json", rllib_meta, "iter_000001/meta.json")]


def test_every_user_json_file_is_read_within_limits_and_runs_nothing(tmp_path, capsys):
    marker = tmp_path / "ran"
    for name, read, file_name in _readers(tmp_path):
        for text, match in hostile_texts(marker):
            path = tmp_path / "input.json"
            path.write_text(text)
            try:
                read(path)
            except SystemExit as exit:  # a command: one line on stderr, a nonzero exit
                assert exit.code not in (0, None), name
                err = capsys.readouterr().err.strip()  # argparse's usage, then the error on one line
                last = err.splitlines()[-1]
                assert "Traceback" not in err and "error:" in last, (name, err[-300:])
                if match:
                    assert match in last and file_name in last, (name, err[-300:])
            except ValueError as error:  # a library call: a ValueError naming the file
                if match:
                    assert match in str(error) and file_name in str(error), (name, str(error)[:300])
            except RecursionError:
                raise AssertionError(f"{name}: RecursionError on {text[:20]!r}")
            else:
                assert match is None, f"{name} accepted {text[:20]!r}"
    assert not marker.exists()

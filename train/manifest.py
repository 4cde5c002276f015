"""SHA-256 manifests of the checkpoints our trainers write, checked before a resume reads a byte of them.

A resume restores what the libraries saved: RLlib's ``restore_from_path`` unpickles its algorithm state, so
a crafted checkpoint directory runs code; sb3's zip holds cloudpickled members (we read its tensors with
``torch.load(weights_only=True)``, but a resume still trusts every member). So each checkpoint gets a
manifest beside it, in ``sha256sum`` format (``sha256sum -c`` checks it by hand), written atomically after
the checkpoint is complete:

* a ``fifthave.train.train`` checkpoint ``ckpt_N.zip`` has ``ckpt_N.zip.sha256`` next to it;
* a ``fifthave.train.rllib`` checkpoint directory ``iter_N`` has ``iter_N/MANIFEST.sha256`` listing every file in it.

``verify`` refuses a checkpoint with no manifest, a file missing, changed or added, or a path that leaves
the checkpoint, with ``ManifestError`` naming the file. What it proves: the files are those a run of ours
wrote next to that manifest. It cannot prove who wrote them: anyone who crafts a whole checkpoint can
write a matching manifest. Resume only checkpoints you or your own runs made (docs/guide.md, "Sharing
files safely").
"""

import hashlib
import os
import re

from fifthave_env.runtime import atomic_write_text

MANIFEST_SUFFIX = ".sha256"
DIRECTORY_MANIFEST = "MANIFEST.sha256"
MAX_MANIFEST_BYTES = 1 << 20  # a manifest of a few hundred files is ~100 KB
MAX_FILES = 10_000
_LINE = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")


class ManifestError(ValueError):
    """A checkpoint whose files do not match the manifest our trainer wrote (or that has none)."""


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files_under(directory):
    """Every regular file under ``directory`` (relative, '/'-separated, sorted), the manifest excluded; a
    symbolic link is refused (it could point anywhere)."""
    found = []
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                raise ManifestError(f"{path} is a symbolic link; a checkpoint written by our trainer has none")
        for name in files:
            relative = os.path.relpath(os.path.join(root, name), directory).replace(os.sep, "/")
            if relative != DIRECTORY_MANIFEST:
                found.append(relative)
        if len(found) > MAX_FILES:
            raise ManifestError(f"{directory} holds more than {MAX_FILES} files; not a checkpoint of ours")
    return sorted(found)


def _write(manifest, base, names):
    atomic_write_text(manifest, "".join(f"{file_sha256(os.path.join(base, name))}  {name}\n" for name in names))


def write_file_manifest(path):
    """Write ``PATH.sha256`` for the checkpoint file ``path``."""
    _write(path + MANIFEST_SUFFIX, os.path.dirname(os.path.abspath(path)), [os.path.basename(path)])


def write_directory_manifest(directory):
    """Write ``DIRECTORY/MANIFEST.sha256`` listing every file under ``directory``."""
    _write(os.path.join(directory, DIRECTORY_MANIFEST), directory, _files_under(directory))


def _read(manifest, what):
    try:
        if os.path.getsize(manifest) > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{manifest} is larger than {MAX_MANIFEST_BYTES} bytes; not a manifest of ours")
        with open(manifest, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise ManifestError(f"{what} has no manifest {manifest} (our trainer writes one next to each checkpoint "
                            f"after it is complete): refused, since resuming unpickles it") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ManifestError(f"cannot read the manifest {manifest}: {error}") from None
    listed = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = _LINE.match(line)
        if not match:
            raise ManifestError(f"{manifest}: line {number} is not 'SHA256  FILE'")
        digest, name = match.groups()
        if name.startswith("/") or ".." in name.split("/") or name in listed:
            raise ManifestError(f"{manifest}: line {number} names {name!r}, which is outside the checkpoint "
                                f"or listed twice")
        listed[name] = digest
    return listed


def _compare(listed, base, present, manifest):
    missing = sorted(set(listed) - set(present))
    added = sorted(set(present) - set(listed))
    if missing or added:
        raise ManifestError(f"the files do not match {manifest}: "
                            + "; ".join(part for part in (missing and f"missing {', '.join(missing)}",
                                                          added and f"not listed {', '.join(added)}") if part))
    for name in present:
        if file_sha256(os.path.join(base, name)) != listed[name]:
            raise ManifestError(f"{os.path.join(base, name)} does not match its SHA-256 in {manifest}: it changed "
                                f"after our trainer wrote it")


def verify_file(path):
    """Raise ``ManifestError`` unless the checkpoint file ``path`` matches ``PATH.sha256``."""
    manifest = path + MANIFEST_SUFFIX
    _compare(_read(manifest, path), os.path.dirname(os.path.abspath(path)), [os.path.basename(path)], manifest)


def verify_directory(directory):
    """Raise ``ManifestError`` unless every file under ``directory`` is listed in its ``MANIFEST.sha256`` with
    its digest, and nothing listed is missing."""
    manifest = os.path.join(directory, DIRECTORY_MANIFEST)
    listed = _read(manifest, directory)
    _compare(listed, directory, _files_under(directory), manifest)

"""One agent file holding the networks of several candidate-value agent files (fits of the same labels with other
seeds): the agent plays the mean of all their networks. Metadata (config, report, name) are the first file's.

    PYTHONPATH=. python results/training/values_selfplay/probes/join_fits.py OUT.npz FIRST.npz SECOND.npz ..."""
import sys

from fifthave.agents.agentfile import read_agent_file
from fifthave.agents.learned import NumpyValueNet
from fifthave.train.export import write_values

out, paths = sys.argv[1], sys.argv[2:]
members, first = [], None
for path in paths:
    meta, arrays = read_agent_file(path)
    first = first or meta
    members += NumpyValueNet.from_arrays(meta["architecture"], arrays).members
print(write_values(out, NumpyValueNet(members), first["training"]["config"], first["training"]["report"],
                   name=first["name"]))

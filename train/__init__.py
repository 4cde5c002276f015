"""Training on FifthAvenue-v0: MaskablePPO against scripted agents or in self-play, evaluation, checkpoints."""

"""Scripted agents for Fifth Avenue (see ``agents.base`` for the protocol)."""

from .base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]

"""The seat views scripted agents decide from (defined in :mod:`fifthave_env.seat_view`).

:class:`StateView` ``(game, seat)`` reads the engine's state (what game runners hand to an
agent's ``act_view``); :class:`SeatView` ``(observation, action_mask, config)`` parses an
observation (what an agent's ``act`` builds). Both expose the same fields, only what the
seat may know (R30, R31); ``View`` is either (the type the agents' functions take).
"""

from fifthave_env.seat_view import NO_OWNER, BoardTables, SeatView, StateView, View, board_tables

__all__ = ["NO_OWNER", "BoardTables", "SeatView", "StateView", "View", "board_tables"]

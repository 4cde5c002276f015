"""The decisions of a game: who is asked what (see ``actions`` for the ids of each)."""

PLACE_START_DECISION = 0
CHOOSE_ACTION_DECISION = 1
SHOP_TILE_DECISION = 2
SHOP_PLOT_DECISION = 3
DRAW_COLOR_DECISION = 4
MOVE_DECISION = 5
SCORE_DISTRICT_DECISION = 6
BID_DECISION = 7
BUILD_DECISION = 8
GAME_OVER = 9
NUM_DECISIONS = 10
DECISION_NAMES = ("place start", "choose action", "shop tile", "shop plot", "draw color",
                  "move commissioner", "score district", "bid", "build", "game over")


def starting_order(first_player: int, n: int) -> list[int]:
    """The seats placing starting skyscrapers, in order (R11): first round from the first player
    counter-clockwise, second round in exactly the reverse order."""
    first_round = [(first_player - i) % n for i in range(n)]
    return first_round + first_round[::-1]


__all__ = ["PLACE_START_DECISION", "CHOOSE_ACTION_DECISION", "SHOP_TILE_DECISION", "SHOP_PLOT_DECISION",
           "DRAW_COLOR_DECISION", "MOVE_DECISION", "SCORE_DISTRICT_DECISION", "BID_DECISION", "BUILD_DECISION",
           "GAME_OVER", "NUM_DECISIONS", "DECISION_NAMES", "starting_order"]

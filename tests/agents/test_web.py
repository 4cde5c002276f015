"""The web app at the HTTP level (Starlette's test client): the seat view carries no hidden data, bad
input of every kind gets a clear message and no crash, a game played through the API replays to the
same end, and the agents' ``explain()`` reports reach game records."""

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs starlette (pip install starlette uvicorn)")
pytest.importorskip("httpx", reason="starlette's test client needs httpx")

with warnings.catch_warnings():  # starlette 1.x would rather have httpx2, which PyPI does not carry yet
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from fifthave.agents.registry import AGENT_FACTORIES  # noqa: E402
from fifthave.agents.search import SearchAgent  # noqa: E402
from fifthave.agents.web.server import create_app  # noqa: E402
from fifthave.agents.web.sessions import MAX_RECORD_BYTES, PlaySession  # noqa: E402
from fifthave.agents.web.views import state_view  # noqa: E402
from fifthave_env.engine.determinize import determinize  # noqa: E402
from fifthave_env.engine.game import Game, GameConfig  # noqa: E402
from fifthave_env.replay import GameRecord, record_game  # noqa: E402


OCTETS = {"Content-Type": "application/octet-stream"}


@pytest.fixture(scope="module")
def record():
    return record_game([AGENT_FACTORIES["heuristic"]() for _ in range(4)], seed=3)


@pytest.fixture()
def client():
    return TestClient(create_app())


def _upload(client, data):
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    return client.post("/api/replay", content=body, headers=OCTETS)


def _midgame(record, moves):
    game = Game.from_dict(record.initial_state)
    for action in record.actions[:moves]:
        game.apply(action)
    return game


@pytest.mark.parametrize("moves", [0, 40, 150, 300])
def test_a_seat_view_is_the_same_whatever_the_hidden_cards(record, moves):
    """R30, R31: redraw everything seat 1 cannot know (determinize); its view must not change, while the
    omniscient view (the check can fail) does."""
    game = _midgame(record, moves)
    rng = np.random.default_rng(moves)
    changed = 0
    for _ in range(5):
        other = determinize(game, 1, rng)
        assert state_view(other, 1) == state_view(game, 1)
        changed += state_view(other, None) != state_view(game, None)
    assert changed  # the hidden parts did change


def test_a_seat_view_over_http_shows_only_that_seats_hand_and_options(client, record):
    summary = _upload(client, record.to_dict()).json()
    for step in (5, 60):
        frame = client.get(f"/api/replay/{summary['id']}/frame/{step}?view=2").json()
        hands = [p["cards"] for p in frame["state"]["players"]]
        assert hands[2] is not None and all(h is None for q, h in enumerate(hands) if q != 2)
        decision = frame["decision"]
        assert ("legal" in decision) == (decision["actor"] == 2)  # another seat's options reveal its cards
        everything = client.get(f"/api/replay/{summary['id']}/frame/{step}?view=all").json()
        assert all(p["cards"] is not None for p in everything["state"]["players"])
        assert "legal" in everything["decision"]


def test_replay_summary_and_frames_follow_the_record(client, record):
    response = _upload(client, record.to_dict())
    assert response.status_code == 200
    summary = response.json()
    final = record.final_game()
    assert len(summary["steps"]) == len(record.actions)
    assert summary["final"]["scores"] == final.scores and summary["steps"][-1]["scores"] == final.scores
    assert any(step["event"] for step in summary["steps"])  # the auctions' timeline
    last = client.get(f"/api/replay/{summary['id']}/frame/{len(record.actions)}").json()
    assert [p["score"] for p in last["state"]["players"]] == final.scores and last["state"]["over"]
    assert client.get(f"/api/replay/{summary['id']}/frame/{len(record.actions) + 1}").status_code == 400
    assert client.get(f"/api/replay/{summary['id']}/frame/3?view=7").status_code == 400


def _tampered(record, change):
    data = json.loads(json.dumps(record.to_dict()))
    change(data)
    return data


@pytest.mark.parametrize("body, says", [
    (b"\xff\xfe not text", "not UTF-8"),
    (b"{not json", "not valid JSON"),
    (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    (b'"a string"', "not a game record"),
    (b'{"settings": {}, "games": []}', "labels"),
])
def test_a_file_that_is_no_record_gets_a_clear_message(client, body, says):
    response = _upload(client, body)
    assert response.status_code == 400 and says in response.json()["error"]


@pytest.mark.parametrize("change, says", [
    (lambda d: d["actions"].__setitem__(5, 146), "not legal"),
    (lambda d: d["actions"].__setitem__(5, 9999), "actions[5]"),
    (lambda d: d["initial_state"]["state"]["scores"].__setitem__(0, "__import__('os')"), "scores"),
    (lambda d: d["initial_state"]["rng"].__setitem__("bit_generator", "MT19937"), "bit_generator"),
    (lambda d: d.__setitem__("evil", 1), "unknown key"),
    (lambda d: d.__setitem__("explanations", [None] * 3), "one entry per action"),
    (lambda d: d.__setitem__("explanations", [{"a": [[[[["deep"]]]]]}] + [None] * (len(d["actions"]) - 1)), "nested"),
    (lambda d: d.__setitem__("explanations", [{"a": "x" * 1000}] + [None] * (len(d["actions"]) - 1)), "characters"),
    (lambda d: d.__setitem__("agents", [{"name": 1}] * 4), "agents[0]"),
])
def test_a_corrupt_or_hostile_record_is_refused_with_a_clear_message(client, record, change, says):
    response = _upload(client, _tampered(record, change))
    assert response.status_code == 400, response.text
    assert says in response.json()["error"]


def test_an_oversized_upload_is_refused(client):
    response = client.post("/api/replay", content=b" " * (MAX_RECORD_BYTES + 1), headers=OCTETS)
    assert response.status_code == 400 and "too large" in response.json()["error"]


def test_a_stale_page_after_a_restart_is_told_so(client, record):
    key = _upload(client, record.to_dict()).json()["id"]
    restarted = TestClient(create_app())  # a new server holds no sessions
    for path in (f"/api/replay/{key}", f"/api/replay/{key}/frame/0", "/api/play/unknown", "/api/play/x/record"):
        response = restarted.get(path)
        assert response.status_code == 404 and "not on the server" in response.json()["error"]
    response = restarted.post("/api/play/unknown/move", json={"action": 0, "step": 0})
    assert response.status_code == 404


@pytest.mark.parametrize("request_body, says", [
    ({"seat": 0, "agents": ["no-such-agent", "random", "random"]}, "no-such-agent"),
    ({"seat": 0, "agents": ["policy:/no/such/model.zip", "random", "random"]}, "seat 1"),
    ({"seat": 0, "agents": ["random"]}, "name one agent"),
    ({"seat": 9, "agents": ["random"] * 3}, "your seat"),
    ({"seat": 0, "agents": ["random"] * 3, "players": 7}, "players"),
    ({"seat": 0, "agents": ["random"] * 3, "seed": -1}, "seed"),
])
def test_a_bad_new_game_is_refused_with_a_clear_message(client, request_body, says):
    response = client.post("/api/play", json=request_body)
    assert response.status_code == 400 and says in response.json()["error"]
    assert client.post("/api/play", content=b"[1, 2", headers={"Content-Type": "application/json"}).status_code == 400


def test_a_game_played_through_the_api_replays_to_the_same_end(client):
    view = client.post("/api/play", json={"seat": 2, "agents": ["greedy", "random", "heuristic"], "seed": 4}).json()
    key = view["id"]
    assert all(p["cards"] is None for p in view["state"]["players"] if p["seat"] != 2)
    assert client.get(f"/api/play/{key}/record").status_code == 409  # not before the end: it holds hidden cards
    moves = 0
    while not view["state"]["over"]:
        legal = view["legal"]
        assert legal and view["state"]["actor"] == 2
        if moves == 3:  # a move that is not legal, and one from a page that was behind: refused, game untouched
            illegal = next(a for a in range(147) if a not in {m["id"] for m in legal})
            response = client.post(f"/api/play/{key}/move", json={"action": illegal, "step": view["step"]})
            assert response.status_code == 409 and "not legal" in response.json()["error"]
            response = client.post(f"/api/play/{key}/move", json={"action": legal[0]["id"], "step": view["step"] - 1})
            assert response.status_code == 409 and "moved on" in response.json()["error"]
            assert client.get(f"/api/play/{key}").json()["step"] == view["step"]
        view = client.post(f"/api/play/{key}/move", json={"action": legal[-1]["id"], "step": view["step"]}).json()
        moves += 1
    assert client.post(f"/api/play/{key}/move", json={"action": 0, "step": view["step"]}).status_code == 409
    data = client.get(f"/api/play/{key}/record").json()
    record = GameRecord.from_dict(data)
    assert record.agents == ["greedy", "random", "you", "heuristic"]
    assert record.final_game().scores == [p["score"] for p in view["state"]["players"]]


def test_two_games_at_once_do_not_meet(client):
    a = client.post("/api/play", json={"seat": 0, "agents": ["random"] * 3, "seed": 1}).json()
    b = client.post("/api/play", json={"seat": 0, "agents": ["random"] * 3, "seed": 2}).json()
    assert a["id"] != b["id"] and len(a["id"]) >= 20
    client.post(f"/api/play/{a['id']}/move", json={"action": a["legal"][0]["id"], "step": a["step"]})
    assert client.get(f"/api/play/{b['id']}").json()["step"] == b["step"]


def test_search_reports_its_candidates_and_records_keep_them():
    agents = [SearchAgent(rollouts=4, depth=2), *(AGENT_FACTORIES["heuristic"]() for _ in range(3))]
    record = record_game(agents, seed=2)
    reports = [r for r, seat in zip(record.explanations, _actors(record)) if r is not None]
    assert reports and all(r["kind"] == "search" and len(r["candidates"]) > 1 for r in reports)
    assert {a for r in reports for c in r["candidates"] for a in c["actions"]} <= set(range(147))
    again = GameRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert again.explanations == record.explanations


def _actors(record):
    game = Game.from_dict(record.initial_state)
    for action in record.actions:
        yield game.actor
        game.apply(action)


def test_a_tournament_game_is_played_again_from_its_seeds(client):
    from fifthave.agents.tournament import run_tournament, agent_factory

    names = ["heuristic", "greedy", "random", "search:2"]
    result = run_tournament([(n, agent_factory(n)) for n in names], games=4, seed=1)
    data = {"settings": result.settings, "games": result.records}
    listing = client.post("/api/replay", content=json.dumps(data), headers=OCTETS).json()
    assert listing["kind"] == "tournament" and [g["game"] for g in listing["games"]] == [0, 1, 2, 3]
    summary = client.post("/api/replay?game=2", content=json.dumps(data), headers=OCTETS).json()
    assert summary["final"]["scores"] == result.records[2]["scores"]
    assert summary["agents"] == [names[e] for e in result.records[2]["entries"]]
    data["games"][1]["scores"][0] += 1  # a result that does not match its seeds
    response = client.post("/api/replay?game=1", content=json.dumps(data), headers=OCTETS)
    assert response.status_code == 400 and "not the recorded" in response.json()["error"]
    data["settings"]["labels"][0] = "policy:/tmp/evil.zip"  # a path in a file is never loaded
    response = client.post("/api/replay?game=0", content=json.dumps(data), headers=OCTETS)
    assert response.status_code == 400 and "never loads a model" in response.json()["error"]


def test_another_sites_form_and_a_rebound_host_name_are_refused(record):
    app = TestClient(create_app(allowed_hosts=["127.0.0.1", "localhost"]), base_url="http://127.0.0.1")
    form = app.post("/api/play", content=b"seat=0", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 400 and "application/json" in form.json()["error"]
    upload = app.post("/api/replay", content=json.dumps(record.to_dict()), headers={"Content-Type": "text/plain"})
    assert upload.status_code == 400 and "octet-stream" in upload.json()["error"]
    assert app.get("/api/agents").status_code == 200
    assert app.get("/api/agents", headers={"Host": "evil.example"}).status_code == 400


def test_the_command_prints_its_address_and_serves_the_page_with_nothing_from_the_network():
    import os
    import re
    import subprocess
    import sys
    import urllib.request

    server = subprocess.Popen([sys.executable, "-m", "fifthave.agents.web", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        address = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        page = urllib.request.urlopen(address, timeout=10).read().decode()
        assert "/static/app.js" in page
        static = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "agents", "web", "static")
        for name in os.listdir(static):
            served = urllib.request.urlopen(address + "static/" + name, timeout=10).read().decode()
            with open(os.path.join(static, name)) as f:
                assert served == f.read()
            # no CDN, font or script from elsewhere: the only URL is the SVG namespace
            assert set(re.findall(r"https?://[^\s\"'`)]+", served)) <= {"http://www.w3.org/2000/svg"}, name
    finally:
        server.terminate()
        server.wait(10)


def test_the_learned_agents_explain_their_decisions():
    pytest.importorskip("torch")
    from fifthave.agents.tournament import agent_factory

    names = ["policy-4p", "values-4p"]
    agents = [agent_factory(n)() for n in names] + [AGENT_FACTORIES["heuristic"]() for _ in range(2)]
    record = record_game(agents, config=GameConfig(max_turns=12), seed=5)  # a few turns are enough
    kinds = {}
    for seat, report in zip(_actors(record), record.explanations):
        if report is not None:
            kinds.setdefault(seat, set()).add(report["kind"])
    assert kinds == {0: {"policy"}, 1: {"values"}}
    for report in (r for r in record.explanations if r and r["kind"] == "policy"):
        probabilities = [c["value"] for c in report["candidates"]]
        assert probabilities == sorted(probabilities, reverse=True) and 0 < sum(probabilities) <= 1 + 1e-3


def test_every_listed_model_starts_a_game(client):
    from fifthave.agents import models

    listed = client.get("/api/agents").json()["models"]
    assert listed == [m.name for m in models.available()]  # a checkout holds every committed model
    for name in listed:
        model = models.MODELS[name]
        view = client.post("/api/play", json={"seat": 0, "agents": [name] * (model.num_players - 1),
                                              "players": model.num_players, "board": model.board, "seed": 1})
        assert view.status_code == 200, view.json()
        assert view.json()["agents"] == ["you"] + [name] * (model.num_players - 1)


def test_a_tournament_that_kept_its_moves_replays_learned_agents(client):
    from fifthave.agents.tournament import agent_factory, run_tournament

    names = ["values-4p", "random", "heuristic", "greedy"]
    result = run_tournament([(n, agent_factory(n)) for n in names], games=4, seed=2, keep_moves=True)
    data = json.loads(json.dumps({"settings": result.settings, "games": result.records}))
    summary = client.post("/api/replay?game=3", content=json.dumps(data), headers=OCTETS).json()
    assert summary["final"]["scores"] == result.records[3]["scores"]
    assert summary["agents"] == [names[e] for e in result.records[3]["entries"]]
    del data["games"][3]["record"]  # without its moves a learned agent's game is not played again
    response = client.post("/api/replay?game=3", content=json.dumps(data), headers=OCTETS)
    assert response.status_code == 400 and "--keep-moves" in response.json()["error"]


def test_a_play_session_without_make_agent_seats_agents_by_name():
    # make_agent defaulted to None and was called as is: every seat failed with "'NoneType' object is not callable"
    session = PlaySession(0, ["random", "greedy", "heuristic"], seed=3)
    assert [type(session.agents[seat]).__name__ for seat in (1, 2, 3)] == ["RandomAgent", "GreedyAgent",
                                                                          "HeuristicAgent"]
    assert session.view()["kind"] == "play"

"""End-to-end tests of the web app in headless Chromium (Debian's ``chromium`` and ``chromium-driver``,
driven by Selenium): open a replay and step to its end, and play a whole game by clicking.

Screenshots go to ``test-artifacts/`` (gitignored). scripts/test.sh installs chromium where it is
missing; without it (a machine where it cannot be installed) these tests skip and say why.
"""

import json
import os
import shutil
import socket
import tempfile
import threading
import time

import pytest

pytest.importorskip("selenium", reason="the e2e tests need selenium (pip install selenium)")
uvicorn = pytest.importorskip("uvicorn", reason="the web app needs uvicorn and starlette")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from fifthave.agents.registry import AGENT_FACTORIES  # noqa: E402
from fifthave.agents.search import SearchAgent  # noqa: E402
from fifthave.agents.web.server import create_app  # noqa: E402
from fifthave_env.replay import record_game  # noqa: E402

CHROMIUM = os.environ.get("FIFTHAVE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("FIFTHAVE_CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "test-artifacts")

HAVE_CHROMIUM = os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)
pytestmark = [
    # in CI a missing browser is a failure (browser fixture), never a silent skip
    pytest.mark.skipif(not HAVE_CHROMIUM and not os.environ.get("CI"),
                       reason=f"no {CHROMIUM} / {CHROMEDRIVER}: install Debian's chromium and chromium-driver "
                              "(scripts/test.sh does, as root)"),
    pytest.mark.xdist_group("browser"),
]


@pytest.fixture(scope="module")
def server():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    if not HAVE_CHROMIUM:
        pytest.fail(f"CI is set but {CHROMIUM} / {CHROMEDRIVER} are missing: scripts/test.sh installs them")
    profile = tempfile.mkdtemp(prefix="fifthave-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1500,1280", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _screenshot(driver, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    driver.save_screenshot(os.path.join(ARTIFACTS, name))


def test_replay_steps_to_the_end_and_shows_the_recorded_scores(server, browser, tmp_path):
    agents = [SearchAgent(rollouts=4, depth=2), *(AGENT_FACTORIES[n]() for n in ("heuristic", "greedy", "heuristic"))]
    record = record_game(agents, seed=11)
    final = record.final_game()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.to_dict()))
    browser.get(server)
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_element(By.ID, "replay-game").get_attribute("data-step") == "0"
               or d.find_element(By.ID, "message").text)
    assert not browser.find_element(By.ID, "message").text
    browser.find_element(By.ID, "forward").click()
    wait.until(lambda d: d.find_element(By.ID, "replay-game").get_attribute("data-step") == "1")
    assert browser.find_element(By.ID, "taken").text == final.describe(record.actions[1])
    browser.find_element(By.ID, "last").click()
    end = str(len(record.actions))
    wait.until(lambda d: d.find_element(By.ID, "replay-game").get_attribute("data-step") == end)
    shown = [int(browser.find_element(By.CSS_SELECTOR, f"#replay-side .score[data-seat='{seat}']").text)
             for seat in range(4)]
    assert shown == final.scores
    assert "game over" in browser.find_element(By.ID, "replay-status").text
    _screenshot(browser, "replay_end.png")
    turn = browser.find_element(By.ID, "jump-turn")
    turn.clear()
    turn.send_keys("20\n")
    wait.until(lambda d: d.find_element(By.ID, "replay-game").get_attribute("data-step") != end)
    _screenshot(browser, "replay_turn20.png")
    # a decision the search agent explained: its candidates and values are shown, the one it played marked
    searched = next(i for i, report in enumerate(record.explanations) if report and i > 150)
    move = browser.find_element(By.ID, "jump-step")
    move.clear()
    move.send_keys(f"{searched}\n")
    wait.until(lambda d: d.find_element(By.ID, "replay-game").get_attribute("data-step") == str(searched))
    rows = browser.find_elements(By.CSS_SELECTOR, "#replay-side table.explain tr")
    assert len(rows) == 1 + len(record.explanations[searched]["candidates"])
    assert browser.find_elements(By.CSS_SELECTOR, "#replay-side table.explain tr.taken")
    _screenshot(browser, "replay_search_report.png")


def test_a_whole_game_against_scripted_agents_by_clicking(server, browser):
    browser.get(server)
    browser.find_element(By.ID, "tab-play").click()
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#opponents input"))
    fields = browser.find_elements(By.CSS_SELECTOR, "#opponents input")
    for field, name in zip(fields, ("greedy", "random", "heuristic")):
        field.clear()
        field.send_keys(name)
    browser.find_element(By.ID, "seed").send_keys("5")
    browser.find_element(By.ID, "start").click()
    clicks = board_clicks = card_clicks = 0
    screenshot_taken = False
    while True:
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#your-move button.action")
                   or "game over" in d.find_element(By.ID, "play-status").text)
        buttons = browser.find_elements(By.CSS_SELECTOR, "#your-move button.action")
        if not buttons:
            break
        step = browser.find_element(By.ID, "play-game").get_attribute("data-step")
        if not screenshot_taken and len(buttons) > 3 and clicks > 40:
            _screenshot(browser, "play_midgame.png")
            screenshot_taken = True
        # the board where it offers the move (a plot, a district, a commissioner's destination), a card of
        # a bid now and then, else the last move button (after the bid cards: confirm or pass)
        on_board = browser.find_elements(By.CSS_SELECTOR, "#play-board [data-action]")
        cards = browser.find_elements(By.CSS_SELECTOR, "#your-move button.card-button")
        if on_board and clicks % 2 == 0:
            on_board[0].click()
            board_clicks += 1
        elif cards and clicks % 3 == 0:
            cards[0].click()
            card_clicks += 1
        else:
            buttons[-1].click()
        clicks += 1
        wait.until(lambda d: d.find_element(By.ID, "play-game").get_attribute("data-step") != step)
        assert clicks < 2000
    assert board_clicks and card_clicks
    status = browser.find_element(By.ID, "play-status").text
    assert "game over" in status and ("you win" in status or "you lose" in status)
    link = browser.find_element(By.ID, "download")
    assert link.get_attribute("href").endswith("/record")
    _screenshot(browser, "play_end.png")

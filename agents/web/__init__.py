"""Watch and play Fifth Avenue in the browser: ``python -m fifthave.agents.web`` (``fifthave serve``).

``server`` is the web app (Starlette on uvicorn, bound to 127.0.0.1), ``sessions`` the replays and
games it holds, ``views`` the JSON the page draws (a seat's view holds only what that seat knows),
``static/`` the page itself (plain HTML, CSS and JavaScript drawing SVG: no build step, no network).
"""

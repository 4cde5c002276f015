// Fifth Avenue in the browser. Draws what the server sends (agents/web/views.py) and knows no rule:
// the legal moves, their names and what they point at on the board all come from the server.
// Text from a record is only ever set as textContent, never parsed as HTML.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

// ---- small helpers -------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function sv(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function svText(parent, x, y, text, attrs) {
  const t = sv("text", Object.assign({x, y, "text-anchor": "middle", "dominant-baseline": "central",
    "font-size": 13, "font-family": "system-ui, sans-serif"}, attrs || {}), parent);
  t.textContent = text;
  return t;
}

function textColor(hex) {
  const v = parseInt(hex.slice(1), 16);
  const lum = 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return lum > 140 ? "#1e1e23" : "#ffffff";
}

function showMessage(text, kind) {
  const box = $("message");
  box.textContent = text;
  box.className = kind || "";
  box.hidden = !text;
}

async function api(method, path, body, raw) {
  let response;
  try {
    response = await fetch(path, {method, body: raw ? body : body === undefined ? undefined : JSON.stringify(body),
      headers: raw ? {"Content-Type": "application/octet-stream"} : {"Content-Type": "application/json"}});
  } catch (error) {
    throw new Error("the server does not answer (is fifthave serve still running?)");
  }
  let data = null;
  try { data = await response.json(); } catch (error) { /* not JSON: reported below */ }
  if (!response.ok) {
    const error = new Error(data && data.error ? data.error : `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

const seatName = (layout, seat) => seat === "Alea" ? "Alea" : `seat ${seat}`;

// ---- the board (SVG, coordinates of fifthave_env/render_image.py) --------------------------

function locationCenter(layout, loc) {
  if (loc < layout.districts.length) return [layout.districts[loc].x, layout.districts[loc].y];
  const box = loc === layout.central_park_id ? layout.central_park : layout.city_hall;
  return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
}

function edgePoint(layout, loc, toward) {
  const [x, y] = locationCenter(layout, loc);
  const dx = toward[0] - x, dy = toward[1] - y, len = Math.hypot(dx, dy);
  let reach;
  if (loc < layout.districts.length) reach = layout.district_radius + 3;
  else {
    const box = loc === layout.central_park_id ? layout.central_park : layout.city_hall;
    reach = Math.min((box[2] - box[0]) / 2 / Math.max(Math.abs(dx) / len, 1e-9),
                     (box[3] - box[1]) / 2 / Math.max(Math.abs(dy) / len, 1e-9)) + 3;
  }
  return [x + dx / len * reach, y + dy / len * reach];
}

function tower(parent, x, y, fill, label, size) {
  const w = 11 * size, h = 14 * size;
  const pts = [[x - w, y + h], [x - w, y - h + 5 * size], [x - w / 2, y - h + 5 * size], [x - w / 2, y - h],
    [x + w / 2, y - h], [x + w / 2, y - h + 5 * size], [x + w, y - h + 5 * size], [x + w, y + h]];
  sv("polygon", {points: pts.map((p) => p.join(",")).join(" "), fill, stroke: "#1e1e23", "stroke-width": 1.5,
    class: "tower"}, parent);
  if (label) svText(parent, x, y + 3 * size, label, {"font-size": 13 * size, "font-weight": 700, fill: textColor(fill)});
}

function shopTile(parent, layout, x, y, type, size) {
  const h = size / 2;
  sv("rect", {x: x - h, y: y - h, width: size, height: size, rx: 3, fill: layout.shop_colors[type], stroke: "#1e1e23"}, parent);
  svText(parent, x, y + 0.5, layout.shop_letters[type], {"font-size": Math.round(size * 0.75), "font-weight": 600});
}

function pawn(parent, x, y, fill) {
  sv("polygon", {points: `${x - 10},${y + 14} ${x - 5},${y - 2} ${x + 5},${y - 2} ${x + 10},${y + 14}`, fill,
    stroke: "#1e1e23", "stroke-width": 1.5}, parent);
  sv("circle", {cx: x, cy: y - 7, r: 7, fill, stroke: "#1e1e23", "stroke-width": 1.5}, parent);
}

function flag(parent, x, y, fill) {
  sv("line", {x1: x, y1: y + 10, x2: x, y2: y - 10, stroke: "#1e1e23", "stroke-width": 2}, parent);
  sv("polygon", {points: `${x},${y - 10} ${x + 14},${y - 5} ${x},${y}`, fill, stroke: "#1e1e23"}, parent);
}

function ownerColor(layout, owner) {
  return owner === 4 ? layout.alea_color : layout.seat_colors[owner];
}

// onAction(target) -> the legal move the click stands for, or null
function drawBoard(svg, layout, state, legal, onAction) {
  svg.replaceChildren();
  const defs = sv("defs", {}, svg);
  const marker = sv("marker", {id: svg.id + "-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: "auto"}, defs);
  sv("path", {d: "M0,0 L10,5 L0,10 z", fill: "#aaa08c"}, marker);
  sv("rect", {x: 0, y: 40, width: 815, height: 680, fill: "#f6f2e8"}, svg);
  const byPlot = {}, byDistrict = {}, byLocation = {};
  for (const move of legal || []) {
    if (move.plot !== undefined) byPlot[move.plot] = move;
    if (move.district !== undefined) byDistrict[move.district] = move;
    if (move.location !== undefined) (byLocation[move.location] = byLocation[move.location] || []).push(move);
  }
  const clickable = (node, move) => {
    node.classList.add("clickable");
    node.setAttribute("data-action", move.id);
    const title = sv("title", {}, node);
    title.textContent = move.name;
    node.addEventListener("click", () => onAction(move));
  };
  // routes (R6) and the way home that starts the auctions
  for (const [src, dest] of layout.routes) {
    if (src === layout.central_park_id) continue;
    const a = edgePoint(layout, src, locationCenter(layout, dest)), b = edgePoint(layout, dest, locationCenter(layout, src));
    sv("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#aaa08c", "stroke-width": 3,
      "marker-end": `url(#${svg.id}-arrow)`}, svg);
  }
  const cp = layout.central_park, ch = layout.city_hall, bottom = 680;
  sv("polyline", {points: `${(cp[0] + cp[2]) / 2},${cp[3] + 3} ${(cp[0] + cp[2]) / 2},${bottom} ${(ch[0] + ch[2]) / 2},${bottom} ${(ch[0] + ch[2]) / 2},${ch[3] + 3}`,
    fill: "none", stroke: "#aaa08c", "stroke-width": 3, "marker-end": `url(#${svg.id}-arrow)`}, svg);
  svText(svg, 400, bottom - 10, "back to City Hall: auctions", {fill: "#827864", "font-size": 13});
  // City Hall
  const hall = sv("g", {}, svg);
  sv("rect", {x: ch[0], y: ch[1], width: ch[2] - ch[0], height: ch[3] - ch[1], rx: 8, fill: "#d7d2c8", stroke: "#78705f",
    "stroke-width": 2}, hall);
  svText(hall, (ch[0] + ch[2]) / 2, ch[1] + 16, "City Hall", {"font-size": 15});
  // Central Park: the towers there, the box of tiles drawn at the end
  const park = sv("g", {id: "central-park"}, svg);
  const auctionHere = state.auction && state.auction.location;
  sv("rect", {x: cp[0], y: cp[1], width: cp[2] - cp[0], height: cp[3] - cp[1], rx: 8, fill: "#96c882",
    stroke: auctionHere === layout.central_park_id ? "#ebaa00" : "#50784a", "stroke-width": auctionHere === layout.central_park_id ? 5 : 2}, park);
  svText(park, (cp[0] + cp[2]) / 2, cp[1] + 14, "Central Park", {"font-size": 14});
  let i = 0;
  state.players.forEach((p) => {
    if (!p.park) return;
    tower(park, cp[0] + 28 + 50 * (i % 2), cp[1] + 52 + 40 * Math.floor(i / 2), layout.seat_colors[p.seat], String(p.park), 1);
    i++;
  });
  svText(park, (cp[0] + cp[2]) / 2, cp[1] + 128, `box (${state.box.length})`, {"font-size": 13});
  state.box.forEach((t, k) => shopTile(park, layout, cp[0] + 16 + 18 * (k % 5), cp[1] + 146 + 18 * Math.floor(k / 5), t, 15));
  if (state.central_park_draw.length) {
    svText(park, (cp[0] + cp[2]) / 2, cp[1] + 190, "drawn at the end", {"font-size": 12});
    state.central_park_draw.forEach((t, k) => shopTile(park, layout, cp[0] + 34 + 18 * k, cp[1] + 208, t, 15));
  }
  // districts and their plots
  const plots = {};
  for (const p of state.plots) plots[p.plot] = p;
  layout.districts.forEach((d, di) => {
    const g = sv("g", {class: "district", "data-district": di}, svg);
    const closed = state.closed[di];
    const auctioned = auctionHere === di;
    const disc = sv("circle", {cx: d.x, cy: d.y, r: layout.district_radius, fill: closed ? "#c8c4bc" : "#fcfaf4",
      stroke: auctioned ? "#ebaa00" : "#787064", "stroke-width": auctioned ? 5 : 2}, g);
    svText(g, d.x, d.y - layout.district_radius - 11, `${di} ${d.name}`, {"font-size": 14});
    if (byDistrict[di] !== undefined) clickable(disc, byDistrict[di]);
    state.markers.forEach((m, c) => { if (m[di]) flag(g, d.x + 66 + 18 * c, d.y - layout.district_radius - 10, layout.commissioner_colors[c]); });
  });
  for (const info of layout.plots) {
    const p = plots[info.plot];
    const g = sv("g", {class: "plot", "data-plot": info.plot}, svg);
    const closed = state.closed[info.district];
    const fill = closed ? "#a5a098" : info.color >= 0 ? layout.card_colors[info.color] : "#ffffff";
    const ring = sv("circle", {cx: info.x, cy: info.y, r: layout.plot_radius, fill,
      stroke: p.height ? ownerColor(layout, p.owner) : "#1e1e23", "stroke-width": p.height ? 4 : 1.5}, g);
    const title = sv("title", {}, ring);
    title.textContent = info.name;
    p.shops.forEach((t, k) => shopTile(g, layout, info.x - 8.5 * (p.shops.length - 1) + 17 * k,
      p.height ? info.y - layout.plot_radius + 2 : info.y, t, 15));
    if (p.height) tower(g, info.x, info.y + (p.shops.length ? 6 : 2), ownerColor(layout, p.owner), String(p.height), 1);
    if (byPlot[info.plot] !== undefined) {
      sv("circle", {cx: info.x, cy: info.y, r: layout.plot_radius + 4, fill: "none", stroke: "#ebaa00",
        "stroke-width": 3, "stroke-dasharray": "5 3"}, g);
      clickable(g, byPlot[info.plot]);
    }
  }
  layout.districts.forEach((d, di) => {  // over the plots: a building stop closed the district (R24)
    if (!state.closed[di]) return;
    sv("rect", {x: d.x - 46, y: d.y - 13, width: 92, height: 26, rx: 5, fill: "#46423c"}, svg);
    svText(svg, d.x, d.y, "CLOSED", {fill: "#fff", "font-size": 15});
  });
  // commissioners (and, when one must move, the places it may go)
  state.commissioners.forEach((loc, c) => {
    const both = state.commissioners[1 - c] === loc;
    let x, y;
    if (loc < layout.districts.length) {
      const d = layout.districts[loc];
      x = d.x - layout.district_radius + 2 + (both ? 22 * c : 0);
      y = d.y + layout.district_radius - 12;
    } else {
      const box = loc === layout.central_park_id ? cp : ch;
      x = (box[0] + box[2]) / 2 + (both ? 12 * (2 * c - 1) : 0);
      y = box[3] - 22;
    }
    pawn(sv("g", {class: "commissioner", "data-commissioner": c}, svg), x, y, layout.commissioner_colors[c]);
  });
  for (const [loc, moves] of Object.entries(byLocation)) {
    const [x, y] = locationCenter(layout, Number(loc));
    moves.forEach((move, k) => {
      const g = sv("g", {}, svg);
      const ox = x + (moves.length > 1 ? (k ? 14 : -14) : 0);
      sv("circle", {cx: ox, cy: y, r: 12, fill: layout.commissioner_colors[move.commissioner], stroke: "#ebaa00",
        "stroke-width": 3, "stroke-dasharray": "4 2"}, g);
      svText(g, ox, y, "\u2192", {"font-size": 14});
      clickable(g, move);
    });
  }
}

// ---- the side panel -------------------------------------------------------------------------

function card(layout, color, label, extra) {
  const fill = layout.card_colors[color];
  return el("span", {class: "card " + (extra || ""), style: `background:${fill};color:${textColor(fill)}`}, String(label));
}

function cardsByKind(layout, counts, onKind, cls) {
  const box = el("span", {});
  counts.forEach((n, k) => {
    if (!n) return;
    const c = card(layout, Math.floor(k / 3), layout.kind_values[k], cls);
    if (onKind) onKind(c, k);
    box.append(c, n > 1 ? el("span", {class: "count"}, `x${n}`) : el("span", {class: "count"}));
  });
  if (!counts.some((n) => n)) box.append("none");
  return box;
}

function drawPlayers(side, layout, state, names) {
  side.append(el("h3", {}, "players"));
  for (const p of state.players) {
    const winner = state.over && state.winners.includes(p.seat);
    const row = el("div", {class: "player" + (p.seat === state.actor ? " actor" : ""), "data-seat": p.seat},
      el("span", {class: "swatch", style: `background:${layout.seat_colors[p.seat]}`}),
      el("span", {class: "who"}, `seat ${p.seat}` + (names && names[p.seat] ? ` \u00b7 ${names[p.seat]}` : "") + (winner ? "  \u2605 winner" : "")),
      el("span", {class: "score", "data-seat": p.seat}, String(p.score)),
      el("span", {class: "stock"}, `reserve ${p.reserve} \u00b7 supply ${p.supply} \u00b7 Central Park ${p.park} \u00b7 ${p.hand_size} cards`));
    const cards = el("span", {class: "cards"});
    if (p.cards) cards.append(cardsByKind(layout, p.cards, null, "small"));
    else {
      // public (R31): the count per color, and the cards known exactly
      p.colors.forEach((n, c) => {
        if (!n) return;
        const known = p.known.slice(3 * c, 3 * c + 3);
        const knownCount = known.reduce((a, b) => a + b, 0);
        known.forEach((m, v) => { for (let j = 0; j < m; j++) cards.append(card(layout, c, layout.kind_values[3 * c + v], "small")); });
        for (let j = knownCount; j < n; j++) cards.append(card(layout, c, "?", "small unknown"));
      });
    }
    row.append(cards);
    side.append(row);
  }
  if (state.alea_supply !== null) side.append(el("div", {}, `Alea (dummy bidder): ${state.alea_supply} skyscrapers left`));
}

function drawPilesAndRow(side, layout, state) {
  side.append(el("h3", {}, "piles"));
  const piles = el("div", {});
  state.piles.forEach((p, c) => piles.append(card(layout, c, p.top === null ? "-" : p.top), el("span", {class: "count"}, `${p.size}`)));
  piles.append(card(layout, 5, "?"), el("span", {class: "count"}, `${state.black}`));
  side.append(piles);
  side.append(el("h3", {}, `shop row \u00b7 ${state.shops_placed}/12 placed \u00b7 stops ${state.stops}/2`));
  const row = el("div", {});
  state.row.forEach((group, gi) => {
    const g = el("span", {class: "group" + (gi === state.active_group ? " active" : "")});
    for (const t of group) {
      g.append(t >= 0 ? el("span", {class: "tile", style: `background:${layout.shop_colors[t]}`}, layout.shop_letters[t])
                      : el("span", {class: "tile empty"}));
    }
    row.append(g);
  });
  side.append(row, el("div", {style: "font-size:11px;color:#665"},
    layout.shop_letters.split("").map((l, t) => `${l} ${layout.shop_names[t]}`).join("  ")));
}

function drawAuction(side, layout, state) {
  const a = state.auction;
  if (!a) return;
  side.append(el("h3", {}, `auction: ${a.name}` + (a.full ? " (full: stop possible)" : "")));
  side.append(el("div", {}, a.high_bidder === -1 ? "no bid yet" : `high bid ${a.high} by ${seatName(layout, a.high_bidder)}`));
  a.seats.forEach((s, q) => {
    const line = el("div", {"data-bid-seat": q}, el("span", {class: "swatch", style: `display:inline-block;width:10px;height:14px;margin-right:6px;background:${layout.seat_colors[q]}`}));
    if (s.passed) line.append("passed");
    else if (s.color < 0) line.append("no cards laid");
    else line.append(cardsByKind(layout, s.cards, null, "small"), ` = ${s.total}` + (a.winner === q ? ", won" : a.high_bidder === q ? " (high bid)" : ""));
    side.append(line);
  });
  if (a.alea) side.append(el("div", {}, `Alea ${a.alea.cards.reduce((x, y) => x + y, 0)} (${a.alea.cards.join(", ")}): ${a.alea.in ? "in" : "out"}`));
  if (a.winner !== -1) side.append(el("div", {}, `won by ${seatName(layout, a.winner)}: building`));
}

function statusLine(state) {
  if (state.over) {
    const who = state.winners.map((s) => `seat ${s}`).join(" and ");
    return `game over (${state.truncated ? "turn limit" : "finished"}): ${who} ${state.winners.length > 1 ? "win" : "wins"}`;
  }
  return `turn ${state.turn} \u00b7 seat ${state.actor} to play: ${state.decision}`;
}

// ---- the replay viewer ----------------------------------------------------------------------

const replay = {id: null, summary: null, step: 0, timer: null, view: "all", request: 0};

function explanationTable(decision) {
  const report = decision.explanation;
  if (!report) return null;
  const box = el("div", {});
  box.append(el("div", {}, `${decision.actor === undefined ? "" : "the agent's report"} (${report.kind || "?"}${report.samples ? `, ${report.samples} samples per candidate` : ""}): ${report.value || ""}`));
  const candidates = Array.isArray(report.candidates) ? report.candidates : [];
  if (candidates.length) {
    const values = candidates.map((c) => (typeof c.value === "number" ? c.value : 0));
    const lo = Math.min(0, ...values), hi = Math.max(...values, 1e-9);
    const table = el("table", {class: "explain"}, el("tr", {}, el("th", {}, "candidate"), el("th", {}, "value"), el("th", {})));
    candidates.forEach((c) => {
      const first = Array.isArray(c.actions) ? c.actions[0] : null;
      const tr = el("tr", {class: first === decision.action ? "taken" : ""},
        el("td", {}, (c.names && c.names.length ? c.names : c.actions || []).join(" + ")),
        el("td", {class: "num"}, typeof c.value === "number" ? c.value.toFixed(3) : String(c.value)),
        el("td", {}, el("span", {class: "bar", style: `width:${Math.round(60 * ((c.value || 0) - lo) / (hi - lo || 1))}px`})));
      table.append(tr);
    });
    box.append(table);
  }
  return box;
}

function drawReplayFrame(frame) {
  const s = replay.summary, layout = s.layout, state = frame.state;
  drawBoard($("replay-board"), layout, state, [], () => null);
  const side = $("replay-side");
  side.replaceChildren();
  side.append(el("div", {class: state.over ? "over" : "", id: "replay-status"}, statusLine(state)));
  drawPlayers(side, layout, state, s.agents);
  drawPilesAndRow(side, layout, state);
  drawAuction(side, layout, state);
  const d = frame.decision;
  if (d) {
    const box = el("div", {class: "decision"});
    box.append(el("div", {}, el("b", {}, `move ${frame.step + 1}: seat ${d.actor} \u2192 `), el("span", {id: "taken"}, d.name)));
    if (d.legal) {
      const list = el("ul", {class: "legal"});
      for (const m of d.legal) list.append(el("li", {class: m.id === d.action ? "taken" : ""}, m.name));
      box.append(el("div", {}, `${d.legal.length} legal moves:`), list);
      const table = explanationTable(d);
      if (table) box.append(table);
    } else {
      box.append(el("div", {class: "thinking"}, "(this seat's options and the agent's report are hidden in this view)"));
    }
    side.append(box);
  }
  if (state.view !== "omniscient" && state.players[state.view].cards) {
    side.append(el("h3", {}, `hand of seat ${state.view}`), cardsByKind(layout, state.players[state.view].cards));
  }
  $("position").textContent = `move ${frame.step} / ${s.steps.length} \u00b7 turn ${state.turn}`;
  $("slider").value = frame.step;
  for (const li of $("events").children) li.classList.toggle("current", Number(li.dataset.step) === frame.step - 1);
  const cursor = $("chart-cursor");
  if (cursor) for (const end of ["x1", "x2"]) cursor.setAttribute(end, 1000 * frame.step / Math.max(1, s.steps.length));
}

async function showStep(step) {
  if (!replay.summary) return;
  step = Math.max(0, Math.min(replay.summary.steps.length, step));
  replay.step = step;
  const ticket = ++replay.request;
  try {
    const frame = await api("GET", `/api/replay/${replay.id}/frame/${step}?view=${encodeURIComponent(replay.view)}`);
    if (ticket !== replay.request) return;  // a later step was asked meanwhile
    drawReplayFrame(frame);
    $("replay-game").dataset.step = String(step);
  } catch (error) {
    stopPlaying();
    showMessage(error.message);
  }
}

function drawTimeline(summary) {
  const chart = $("chart");
  chart.replaceChildren();
  const n = summary.steps.length;
  let top = 10;
  for (const st of summary.steps) top = Math.max(top, ...st.scores);
  const x = (i) => 1000 * i / Math.max(1, n), y = (v) => 150 - 140 * v / top;
  for (let seat = 0; seat < summary.layout.num_players; seat++) {
    const pts = [`${x(0)},${y(summary.start_scores[seat])}`];
    summary.steps.forEach((st, i) => pts.push(`${x(i + 1)},${y(st.scores[seat])}`));
    const color = summary.layout.seat_colors[seat];
    sv("polyline", {points: pts.join(" "), fill: "none", stroke: color === "#fafafa" ? "#999" : color, "stroke-width": 2.5,
      "vector-effect": "non-scaling-stroke"}, chart);
  }
  sv("line", {id: "chart-cursor", x1: 0, x2: 0, y1: 0, y2: 160, stroke: "#333", "stroke-width": 1, "vector-effect": "non-scaling-stroke"}, chart);
  chart.onclick = (event) => {
    const box = chart.getBoundingClientRect();
    showStep(Math.round(n * (event.clientX - box.left) / box.width));
  };
  const events = $("events");
  events.replaceChildren();
  summary.steps.forEach((st, i) => {
    if (!st.event) return;
    events.append(el("li", {"data-step": i, onclick: () => showStep(i)}, `turn ${st.turn}: ${st.event.text}`));
  });
}

function pickTournamentGame(file, body, listing) {
  const select = el("select", {id: "tournament-game"}, el("option", {value: ""}, `${listing.games.length} games: pick one`));
  for (const g of listing.games) {
    select.append(el("option", {value: String(g.game)},
      `game ${g.game}: ${g.agents.map((a, s) => `${a} ${Array.isArray(g.scores) ? g.scores[s] : "?"}`).join(", ")}`));
  }
  select.onchange = () => { if (select.value !== "") openRecord(file, body, select.value); };
  $("replay-title").replaceChildren(`${file.name}: a tournament — the game is played again from its seeds `, select);
}

async function openRecord(file, body, game) {
  stopPlaying();
  showMessage("");
  if (!body) {
    try { body = await file.arrayBuffer(); } catch (error) { showMessage(`cannot read ${file.name}`); return; }
  }
  $("status").textContent = "reading the record…";
  try {
    const query = `name=${encodeURIComponent(file.name)}` + (game === undefined ? "" : `&game=${game}`);
    const summary = await api("POST", `/api/replay?${query}`, body, true);
    if (summary.kind === "tournament") { pickTournamentGame(file, body, summary); return; }
    replay.id = summary.id;
    replay.summary = summary;
    const view = $("view");
    view.replaceChildren(el("option", {value: "all"}, "everything (omniscient)"));
    for (let seat = 0; seat < summary.layout.num_players; seat++) {
      view.append(el("option", {value: String(seat)}, `what seat ${seat} sees` + (summary.agents ? ` (${summary.agents[seat]})` : "")));
    }
    view.value = replay.view = "all";
    $("replay-title").textContent = `${summary.title}: ${summary.layout.num_players} players, ${summary.steps.length} moves` +
      (summary.agents ? ` \u00b7 ${summary.agents.join(", ")}` : "");
    $("slider").max = summary.steps.length;
    $("jump-step").max = summary.steps.length;
    $("controls").hidden = false;
    $("replay-game").hidden = false;
    $("timeline").hidden = false;
    drawTimeline(summary);
    await showStep(0);
  } catch (error) {
    showMessage(`${file.name}: ${error.message}`);
  } finally {
    $("status").textContent = "";
  }
}

function stopPlaying() {
  if (replay.timer) clearInterval(replay.timer);
  replay.timer = null;
  $("playpause").textContent = "\u25B6 play";
}

function togglePlaying() {
  if (replay.timer) { stopPlaying(); return; }
  if (!replay.summary) return;
  if (replay.step >= replay.summary.steps.length) showStep(0);
  $("playpause").textContent = "\u23F8 pause";
  replay.timer = setInterval(() => {
    if (replay.step >= replay.summary.steps.length) { stopPlaying(); return; }
    showStep(replay.step + 1);
  }, Number($("speed").value));
}

function jumpToTurn(turn) {
  const index = replay.summary.steps.findIndex((st) => st.turn >= turn);
  showStep(turn <= 0 ? 0 : index < 0 ? replay.summary.steps.length : index + 1);
}

// ---- playing ----------------------------------------------------------------------------------

const play = {id: null, view: null, busy: false};

function setupNewGameForm(names) {
  const list = $("agent-names");
  for (const n of names.agents.concat(names.models)) list.append(el("option", {value: n}));
  const refresh = () => {
    const players = Number($("players").value);
    const seat = $("seat");
    const chosen = Math.min(Number(seat.value || 0), players - 1);
    seat.replaceChildren(...Array.from({length: players}, (_, i) => el("option", {value: String(i)}, `seat ${i}`)));
    seat.value = String(chosen);
    const box = $("opponents");
    const old = Array.from(box.querySelectorAll("input")).map((i) => i.value);
    box.replaceChildren();
    let k = 0;
    for (let s = 0; s < players; s++) {
      if (s === chosen) continue;
      box.append(el("label", {}, `seat ${s} `, el("input", {class: "opponent", list: "agent-names", size: 14,
        value: old[k] || "heuristic", "data-seat": s})), " ");
      k++;
    }
  };
  $("players").onchange = refresh;
  $("seat").onchange = refresh;
  refresh();
}

async function startGame(event) {
  event.preventDefault();
  showMessage("");
  const agents = Array.from(document.querySelectorAll("#opponents input")).map((i) => i.value.trim());
  const seed = $("seed").value;
  $("start").disabled = true;
  $("status").textContent = "setting up the game\u2026";
  try {
    const view = await api("POST", "/api/play", {seat: Number($("seat").value), agents, players: Number($("players").value),
      board: Number($("board-size").value), seed: seed === "" ? null : Number(seed)});
    play.id = view.id;
    drawPlay(view);
  } catch (error) {
    showMessage(error.message);
  } finally {
    $("start").disabled = false;
    $("status").textContent = "";
  }
}

async function sendMove(move) {
  if (play.busy || !play.view) return;
  play.busy = true;
  $("status").textContent = "the agents are playing\u2026";
  document.querySelectorAll("#play-side .moves button").forEach((b) => { b.disabled = true; });
  try {
    const view = await api("POST", `/api/play/${play.id}/move`, {action: move.id, step: play.view.step});
    showMessage("");
    drawPlay(view);
  } catch (error) {
    showMessage(error.message);
    if (error.status === 409) {  // the page was behind the game: show the game as it is
      try { drawPlay(await api("GET", `/api/play/${play.id}`)); } catch (again) { showMessage(again.message); }
    } else if (play.view) drawPlay(play.view);
  } finally {
    play.busy = false;
    $("status").textContent = "";
  }
}

function drawPlay(view) {
  play.view = view;
  const layout = view.layout, state = view.state;
  $("play-game").hidden = false;
  $("play-game").dataset.step = String(view.step);
  drawBoard($("play-board"), layout, state, view.legal, sendMove);
  const side = $("play-side");
  side.replaceChildren();
  side.append(el("div", {class: state.over ? "over" : "", id: "play-status"}, state.over
    ? statusLine(state) + (state.winners.includes(view.seat) ? " \u2014 you win!" : " \u2014 you lose")
    : view.legal.length ? `your turn (seat ${view.seat}): ${state.decision}` : statusLine(state)));
  if (view.legal.length) {
    const box = el("div", {class: "decision", id: "your-move"});
    const moves = el("div", {class: "moves"});
    const bidCards = view.legal.filter((m) => m.kind !== undefined);
    const others = view.legal.filter((m) => m.kind === undefined);
    if (bidCards.length) {
      box.append(el("div", {}, "lay a card of your bid (one at a time), then confirm, or pass:"));
      const row = el("div", {class: "moves"});
      for (const m of bidCards) {
        const fill = layout.card_colors[Math.floor(m.kind / 3)];
        row.append(el("button", {class: "action card-button", "data-id": m.id, title: m.name,
          style: `background:${fill};color:${textColor(fill)}`, onclick: () => sendMove(m)}, String(layout.kind_values[m.kind])));
      }
      box.append(row);
    } else if (others.some((m) => m.plot !== undefined || m.location !== undefined || m.district !== undefined)) {
      box.append(el("div", {}, "click a highlighted place on the board, or a move below:"));
    }
    for (const m of others) moves.append(el("button", {class: "action", "data-id": m.id, onclick: () => sendMove(m)}, m.name));
    box.append(moves);
    side.append(box);
  }
  const me = state.players[view.seat];
  side.append(el("h3", {}, `your hand (seat ${view.seat})`), cardsByKind(layout, me.cards));
  drawAuction(side, layout, state);
  drawPlayers(side, layout, state, view.agents);
  drawPilesAndRow(side, layout, state);
  if (state.over) {
    side.prepend(el("div", {class: "decision"}, el("a", {id: "download", href: `/api/play/${play.id}/record`,
      download: "fifthave-game.json"}, "download the game record"), " \u2014 open it in \u201cWatch a replay\u201d to see every move"));
  }
  side.append(el("h3", {}, `moves (${view.moves})`));
  const log = el("ol", {class: "log", start: Math.max(1, view.moves - view.log.length + 1)});
  for (const entry of view.log) log.append(el("li", {}, `seat ${entry.seat}: ${entry.name}`));
  side.append(log);
  log.scrollTop = log.scrollHeight;
}

// ---- wiring -----------------------------------------------------------------------------------

function init() {
  document.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => {
    document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t === tab));
    document.querySelectorAll(".panel").forEach((p) => { p.hidden = p.id !== tab.dataset.panel; });
    stopPlaying();
  }));
  $("record-file").addEventListener("change", (e) => { if (e.target.files.length) openRecord(e.target.files[0]); });
  $("view").addEventListener("change", (e) => { replay.view = e.target.value; showStep(replay.step); });
  $("first").onclick = () => { stopPlaying(); showStep(0); };
  $("last").onclick = () => { stopPlaying(); showStep(replay.summary.steps.length); };
  $("back").onclick = () => { stopPlaying(); showStep(replay.step - 1); };
  $("forward").onclick = () => { stopPlaying(); showStep(replay.step + 1); };
  $("playpause").onclick = togglePlaying;
  $("slider").oninput = (e) => { stopPlaying(); showStep(Number(e.target.value)); };
  const onEnterOrChange = (input, go) => {
    input.addEventListener("change", () => { stopPlaying(); go(Number(input.value)); });
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") { stopPlaying(); go(Number(input.value)); } });
  };
  onEnterOrChange($("jump-step"), showStep);
  onEnterOrChange($("jump-turn"), jumpToTurn);
  document.addEventListener("keydown", (e) => {
    if ($("replay").hidden || !replay.summary || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") { stopPlaying(); showStep(replay.step + 1); }
    else if (e.key === "ArrowLeft") { stopPlaying(); showStep(replay.step - 1); }
    else if (e.key === " ") { e.preventDefault(); togglePlaying(); }
  });
  $("new-game").addEventListener("submit", startGame);
  api("GET", "/api/agents").then(setupNewGameForm).catch((error) => showMessage(error.message));
}

init();

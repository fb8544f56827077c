// The sproutsdb page: ask /api/v1/position, show each value with its status and source,
// walk to children and replies; the browser's Back and Forward walk back and forth.
"use strict";

const $ = (id) => document.getElementById(id);
let trail = [];              // positions walked through, oldest first (kept in history.state)

function text(value) {
  return value === null || value === undefined ? "unknown" : String(value);
}

function cell(row, value, cls, label) {
  const td = row.insertCell();
  td.textContent = value;
  if (cls) td.className = cls;
  if (label) td.dataset.label = label;
  return td;
}

// A badge "verified · stored": how far a value is checked and where it comes from.
function badge(status, source) {
  const span = document.createElement("span");
  if (!status && !source) return span;
  span.className = "badge " + (status || "unknown");
  const words = [status === "claimed" ? "claim" : status, source].filter(Boolean);
  span.textContent = words.join(" · ");
  span.title = status === "verified" ? "re-derived from the rules (or inferred from verified values)"
    : status === "claimed" ? "not checked yet: a claim, not a result" : (status || "");
  return span;
}

function setValue(id, value, status, source) {
  const el = $(id);
  el.textContent = text(value);
  el.className = status === "verified" ? "result" : (value === null || value === undefined ? "" : "claim");
  $(id + "-badge").replaceChildren(badge(value === null || value === undefined ? null : status, source));
}

function link(pos, from, attr) {
  const a = document.createElement("a");
  a.textContent = pos;
  a.href = "?pos=" + encodeURIComponent(pos);
  a.dataset[attr || "pos"] = pos;
  a.addEventListener("click", (e) => { e.preventDefault(); walk(pos, from); });
  return a;
}

async function fetchView(pos, from) {
  let url = "api/v1/position?pos=" + encodeURIComponent(pos);
  if (from) url += "&from=" + encodeURIComponent(from);
  let reply;
  try {
    reply = await fetch(url);
  } catch (e) {
    fail("the server did not answer: " + e);
    return null;
  }
  let data;
  try {
    data = await reply.json();
  } catch (e) {
    fail("the server answered " + reply.status + " without JSON");
    return null;
  }
  if (!reply.ok) { fail(data.error || reply.statusText); return null; }
  return data;
}

// Walk to a position (a new history entry); `from` is where the user came from.
async function walk(pos, from) {
  const data = await fetchView(pos, from);
  if (!data) return;
  if (!from) trail = [];
  if (trail[trail.length - 1] !== data.position) trail = trail.concat([data.position]);
  const state = { pos: data.position, from: from || null, trail };
  history.pushState(state, "", "?pos=" + encodeURIComponent(data.position));
  render(data);
}

// Show a position without a new history entry (Back, Forward, a link opened directly).
async function showState(state) {
  if (!state || !state.pos) return showStart();
  const data = await fetchView(state.pos, state.from);
  if (!data) return;
  trail = state.trail && state.trail.length ? state.trail.slice() : [data.position];
  history.replaceState({ pos: data.position, from: state.from || null, trail },
    "", "?pos=" + encodeURIComponent(data.position));
  render(data);
}

// An error says why, and the start's positions stay there to open one instead.
function fail(message) {
  $("error").textContent = message;
  $("error").hidden = false;
  if ($("values").hidden) fillStartLinks();
}

function fillStartLinks() {
  const box = $("start-links");
  if (box.childElementCount) return;
  for (let n = 1; n <= 12; n++) {
    box.appendChild(link("0*" + n, null, "start"));
    box.appendChild(document.createTextNode(" "));
  }
  box.appendChild(link("0.AB|AB", null, "start"));
}

function showStart() {
  $("error").hidden = true;
  $("values").hidden = true;
  $("start").hidden = false;
  $("path").replaceChildren();
  trail = [];
  $("back").disabled = true;
  fillStartLinks();
}

function rctText(d) {
  if (!d.rct) return "unknown";
  return d.rct_label + " (height " + d.rct_height + ", " + d.rct + ")";
}

function render(d) {
  $("error").hidden = true;
  $("start").hidden = true;
  $("values").hidden = false;
  $("pos").value = d.position;
  $("position").textContent = d.position;
  $("lives").textContent = d.lives;
  setValue("nimber", d.nimber, d.nimber_status, d.nimber_source);
  setValue("outcome", d.outcome, d.outcome_status, d.outcome_source);
  setValue("misere", d.misere, d.misere_status, d.misere_source);
  setValue("rct", d.rct ? rctText(d) : null, d.rct_status, d.rct_source);
  if (!d.rct) $("rct").textContent = d.rct_note ? "not computed here (see Provenance)" : "unknown";
  renderProof(d);
  proofRoot = d.position;
  $("proof-tree").replaceChildren();
  renderProvenance(d);
  renderLands(d);
  drawTree(d.rct_tree);
  drawBoards(d.lands.map((land) => land.land));
  drawSprouts(d.drawing, d.position);
  renderChildren(d);
  $("back").disabled = trail.length < 2;
  const path = $("path");
  path.replaceChildren();
  trail.forEach((p, i) => {
    const a = document.createElement("a");
    a.textContent = (i ? "→ " : "") + p;
    a.href = "?pos=" + encodeURIComponent(p);
    a.addEventListener("click", (e) => { e.preventDefault(); history.go(i - (trail.length - 1)); });
    path.appendChild(a);
  });
}

// The proof the store shows: the winning move, or that every move has a refuting reply.
function renderProof(d) {
  const box = $("proof");
  box.replaceChildren();
  for (const [play, name] of [["normal", "Normal play"], ["misere", "Misère play"]]) {
    const p = d.proof && d.proof[play];
    const line = document.createElement("p");
    line.className = "proof " + play;
    line.dataset.play = play;
    const title = document.createElement("b");
    title.textContent = name + ": ";
    line.appendChild(title);
    if (!p) {
      line.appendChild(document.createTextNode("no value in the store."));
    } else if (p.outcome === "L") {
      line.appendChild(document.createTextNode("a loss for the player to move "));
      line.appendChild(badge(p.status, p.source));
      line.appendChild(document.createTextNode(p.children
        ? ". Every move is answered: " + p.refuted + " of " + p.children +
          " children below show the reply that refutes them."
        : ". No move is left."));
    } else {
      line.appendChild(document.createTextNode("a win for the player to move "));
      line.appendChild(badge(p.status, p.source));
      if (p.move) {
        line.appendChild(document.createTextNode(". Winning move: "));
        line.appendChild(link(p.move, d.position, "move"));
        if (p.move_status !== "verified") line.appendChild(badge(p.move_status, null));
      } else {
        line.appendChild(document.createTextNode(". No winning move among the children is known."));
      }
    }
    const why = d.inferred_from && d.inferred_from[play];
    if (why) {
      const note = document.createElement("span");
      note.className = "hint";
      note.textContent = " (inferred: " + why + ")";
      line.appendChild(note);
    }
    box.appendChild(line);
  }
}

function describe(who) {
  if (!who) return "";
  if (who.table) return "the RCT table " + who.table;
  return [who.who, who.tool, who.version, who.when, who.comment].filter(Boolean).join(", ");
}

function renderProvenance(d) {
  const list = $("provenance");
  list.replaceChildren();
  const add = (what, who) => {
    if (!who) return;
    const li = document.createElement("li");
    li.textContent = what + ": " + describe(who);
    list.appendChild(li);
  };
  for (const land of d.lands) {
    add("nimber of " + land.land + " stored by", land.provenance);
    add("nimber of " + land.land + " verified by", land.verified_by);
    add("RCT of " + land.land + " mapped by", land.rct_provenance);
    if (land.refutation) add("claimed nimber of " + land.land + " refuted", { who: land.refutation.evidence });
    if (land.rct_problem) add("RCT of " + land.land, { who: land.rct_problem });
  }
  add("misère outcome stored by", d.misere_source === "stored" ? d.misere_provenance : null);
  add("RCT of the position mapped by", d.rct_source !== "lands" ? d.rct_provenance : null);
  if (d.rct_problem) add("RCT of the position", { who: d.rct_problem });
  if (d.rct_note) add("RCT of the position", { who: d.rct_note });
  if (!list.childElementCount) {
    const li = document.createElement("li");
    li.textContent = "no stored fact of this position";
    list.appendChild(li);
  }
}

function valueCell(row, value, status, source, label, cls) {
  const td = cell(row, "", cls, label);
  const v = document.createElement("span");
  v.textContent = text(value);
  v.className = status === "verified" ? "result" : (value === null || value === undefined ? "" : "claim");
  td.appendChild(v);
  if (value !== null && value !== undefined) {  // one status per value, everywhere
    td.appendChild(document.createTextNode(" "));
    td.appendChild(badge(status, source));
  }
  return td;
}

// What each R1 class means (the class named "null" is a value, not missing data).
const R1_MEANS = {
  "null": "normal L, misère W", "trap": "normal L, misère L", "inverter": "*1, misère L",
  "higher inverter": "*n>1, misère L", "gremlin": "*1, misère W", "higher switch": "*n>1, misère W",
};

function renderLands(d) {
  const lands = $("lands").tBodies[0];
  lands.replaceChildren();
  for (const land of d.lands) {
    const row = lands.insertRow();
    cell(row, land.land, "key", "land");
    cell(row, land.lives, null, "lives");
    valueCell(row, land.nimber, land.nimber_status, land.nimber_source, "nimber");
    valueCell(row, land.misere, land.misere_status, land.misere_source, "misère");
    const r1 = valueCell(row, land.r1, land.r1_status, null, "R1 class", "r1");
    if (land.r1) r1.firstChild.textContent = land.r1 + " (" + R1_MEANS[land.r1] + ")";
    cell(row, land.rct_label || "unknown", null, "RCT");
  }
  renderR1(d);
}

// The R1 note's rule under the lands: the case that applies to their classes and its move
// (the note's claim, not a proof; the children's misère column shows the exact outcomes).
function renderR1(d) {
  let box = $("r1-rule");
  if (!box) {
    box = document.createElement("p");
    box.id = "r1-rule";
    box.className = "r1-rule";
    $("lands").after(box);
  }
  box.replaceChildren();
  const r1 = d.r1;
  if (!r1) return;
  const title = document.createElement("b");
  title.textContent = "R1 rule (misère note): ";
  box.appendChild(title);
  if (r1.case === null) {
    box.appendChild(document.createTextNode("no case applies (" + r1.reason + ")."));
    if (r1.scope) box.appendChild(document.createTextNode(" Scope: " + r1.scope.says + "."));
    return;
  }
  box.appendChild(document.createTextNode("case " + r1.case + " applies (" + r1.reason + ")"));
  if (r1.moved_to) {
    box.appendChild(document.createTextNode("; its move: " + r1.land + " (" + r1.land_class +
      ") → " + r1.to + " (" + r1.to_class + "), reaching "));
    box.appendChild(link(r1.moved_to, d.position, "r1"));
    box.appendChild(document.createTextNode(r1.result_loses_by_note
      ? ", a loss by the note (a claim, not a proof)." : ", which the note itself does not call a loss."));
  } else {
    box.appendChild(document.createTextNode("."));
  }
  if (r1.status && r1.status !== "verified") box.appendChild(badge(r1.status, null));
  if (r1.scope) {
    const scope = document.createElement("span");
    scope.className = "r1-scope";
    scope.textContent = " Scope: " + r1.scope.says + ".";
    box.appendChild(scope);
  }
}

// A reply that refutes a move (a child of the child that is a loss): click to follow it.
function replyInto(td, reply, child) {
  if (!reply) return;
  td.appendChild(link(reply.position, child.position, "reply"));
  td.append(" ", badge(reply.status, reply.source === "node" ? "node" : null));
  if (reply.source === "node") {
    td.lastChild.title = "a loss the misère search stored as a node: the lands of this " +
      "position that the RCT table holds read as their trees (RCTs)";
  }
}

function winText(wins) {
  return wins ? "★ win" : (wins === false ? "" : "?");
}

// "★ win" for a move to a loss; a claim's star says it is only claimed.
function winCell(row, wins, status, label, cls) {
  const td = cell(row, winText(wins), cls, label);
  if (wins && status !== "verified") td.append(" ", badge(status, null));
  return td;
}

function renderChildren(d) {
  $("child-count").textContent = "(" + (d.children_count || d.children.length) + ")";
  $("children-note").textContent = [d.children_note, d.replies_note].filter(Boolean).join("; ");
  const body = $("children").tBodies[0];
  body.replaceChildren();
  for (const child of d.children) {
    const row = body.insertRow();
    row.className = "child" + (child.winning_normal ? " win-normal" : "") +
      (child.winning_misere ? " win-misere" : "");
    const key = cell(row, "", "key", "child");
    key.appendChild(link(child.position, d.position));
    valueCell(row, child.nimber, child.nimber_status, child.nimber_source, "nimber", "nimber");
    if (child.winning_normal || child.outcome === null) {
      winCell(row, child.winning_normal, child.outcome_status, "normal", "normal");
    } else {  // a win for the player then to move: its status says whether that is proven
      valueCell(row, child.outcome, child.outcome_status, child.outcome_source, "normal", "normal");
    }
    replyInto(cell(row, "", "reply", "reply"), child.reply_normal, child);
    valueCell(row, child.misere, child.misere_status, child.misere_source, "misère", "misere");
    const move = winCell(row, child.winning_misere, child.misere_status, "misère move",
      "misere-move");
    if (child.reply_misere) {
      move.textContent = "reply ";
      replyInto(move, child.reply_misere, child);
    }
  }
}

// The RCT as a small tree: leaves are nim-heaps (*n), inner nodes sets of options.
function drawTree(tree) {
  const box = $("tree");
  box.replaceChildren();
  if (!tree) return;
  const ns = "http://www.w3.org/2000/svg";
  const placed = [];
  let leaves = 0;
  function place(node, depth) {
    const kids = (node.children || []).map((k) => place(k, depth + 1));
    const x = kids.length ? (kids[0].x + kids[kids.length - 1].x) / 2 : leaves++;
    const item = { x, depth, node, kids };
    placed.push(item);
    return item;
  }
  const root = place(tree, 0);
  const depth = Math.max(...placed.map((p) => p.depth));
  const dx = 34, dy = 40;
  const svg = document.createElementNS(ns, "svg");
  const width = Math.max(1, leaves) * dx + 20, height = (depth + 1) * dy + 20;
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  svg.setAttribute("width", width);
  svg.setAttribute("id", "rct-svg");
  const X = (p) => 10 + dx / 2 + p.x * dx, Y = (p) => 20 + p.depth * dy;
  for (const p of placed) for (const k of p.kids) {
    const line = document.createElementNS(ns, "line");
    line.setAttribute("x1", X(p)); line.setAttribute("y1", Y(p));
    line.setAttribute("x2", X(k)); line.setAttribute("y2", Y(k));
    line.setAttribute("stroke", "#999");
    svg.appendChild(line);
  }
  for (const p of placed) {
    const c = document.createElementNS(ns, "circle");
    c.setAttribute("cx", X(p)); c.setAttribute("cy", Y(p)); c.setAttribute("r", 9);
    c.setAttribute("fill", p === root ? "#ffd" : "#fff"); c.setAttribute("stroke", "#555");
    svg.appendChild(c);
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", X(p)); t.setAttribute("y", Y(p) + 4);
    t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", "10");
    t.textContent = "nim" in p.node ? String(p.node.nim) : "";
    svg.appendChild(t);
  }
  const title = document.createElement("h3");
  title.textContent = "Its reduced canonical tree (leaves: nim-heaps)";
  box.append(title, svg);
}

// Cram lands as boards: "MxN" is an empty board, else rows of . (empty) and # (taken)
// joined by "/". Lands of other games are not drawn.
function boardRows(land) {
  const empty = /^(\d+)x(\d+)$/.exec(land);
  if (empty) return Array.from({ length: +empty[1] }, () => ".".repeat(+empty[2]));
  return /^[.#]+(\/[.#]+)*$/.test(land) ? land.split("/") : null;
}

function drawBoards(lands) {
  const box = $("boards");
  box.replaceChildren();
  const ns = "http://www.w3.org/2000/svg", size = 18;
  for (const land of lands) {
    const rows = boardRows(land);
    if (!rows || rows.length * rows[0].length > 400) continue;
    const svg = document.createElementNS(ns, "svg");
    const width = rows[0].length * size + 2, height = rows.length * size + 2;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("width", width);
    svg.setAttribute("class", "board");
    svg.setAttribute("aria-label", "board " + land);
    rows.forEach((row, r) => [...row].forEach((mark, c) => {
      const square = document.createElementNS(ns, "rect");
      square.setAttribute("x", 1 + c * size); square.setAttribute("y", 1 + r * size);
      square.setAttribute("width", size); square.setAttribute("height", size);
      square.setAttribute("fill", mark === "#" ? "#555" : "#fff");
      square.setAttribute("stroke", "#999");
      svg.appendChild(square);
    }));
    box.appendChild(svg);
  }
  if (box.childElementCount) {
    const title = document.createElement("h3");
    title.textContent = "Boards (a move covers two free squares side by side)";
    box.prepend(title);
  }
}

// A small Sprouts position as a picture, from the layout the server computes
// (server/sprouts_drawing.py): each region a box of its own holding its boundaries, a
// boundary the closed walk through its spots in the notation's order, a spot filled by its
// lives, the two copies of a spot written in two regions joined by a dashed line.
const LIVES_FILL = { 3: "#1f5fa8", 2: "#4fa35a", 1: "#f0b030", 0: "#b8b8b8" };
const LIVES_WORDS = { 3: "3 lives (isolated)", 2: "2 lives", 1: "1 life", 0: "dead" };

function svgElement(name, attrs, text) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// Where a spot's letter goes: beside the spot, away from the middle of its boundary.
function labelSpot(point, points) {
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2, cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  let dx = point.x - cx, dy = point.y - cy;
  if (points.length > 1 && Math.abs(dy) < 1 && new Set(xs).size === 2) { dx = 0; dy = -1; }
  const norm = Math.hypot(dx, dy);
  if (norm < 1) { dx = 0.7; dy = -0.7; } else { dx /= norm; dy /= norm; }
  return { x: point.x + dx * 15, y: point.y + dy * 15 + 4 };
}

function drawSprouts(drawing, position) {
  const box = $("sprouts-drawing");
  box.replaceChildren();
  box.hidden = !drawing;
  if (!drawing) return;
  if (drawing.note) {  // one line instead of a picture
    const note = document.createElement("p");
    note.className = "hint";
    note.id = "drawing-note";
    note.textContent = "No picture of the position: " + drawing.note + ".";
    box.appendChild(note);
    return;
  }
  const title = document.createElement("h3");
  title.textContent = "Picture of the position";
  box.appendChild(title);
  // drawn a little larger than its units on a wide screen, scaled down to fit a narrow one
  const pad = 4, width = drawing.width + 2 * pad, height = drawing.height + 2 * pad, zoom = 1.3;
  const regions = drawing.regions.length, lands = drawing.lands.length || 1;
  const summary = "Sprouts position " + position + ": " + drawing.spots + " spots, " +
    drawing.lives + " lives, " + regions + (regions === 1 ? " region" : " regions") +
    (lands > 1 ? " in " + lands + " lands" : "");
  const svg = svgElement("svg", {
    viewBox: (-pad) + " " + (-pad) + " " + width + " " + height,
    width: Math.round(width * zoom), height: Math.round(height * zoom),
    class: "sprouts", id: "sprouts-svg", role: "img", "aria-label": summary,
  });
  svg.appendChild(svgElement("title", {}, summary));
  for (const land of drawing.lands) {
    svg.appendChild(svgElement("rect", { x: land.x, y: land.y, width: land.w, height: land.h,
      rx: 6, class: "land" }));
    svg.appendChild(svgElement("text", { x: land.x + 6, y: land.y + 11, class: "land-label" },
      land.label));
  }
  for (const region of drawing.regions) {
    svg.appendChild(svgElement("rect", { x: region.x, y: region.y, width: region.w,
      height: region.h, rx: 8, class: "region" }));
    svg.appendChild(svgElement("text", { x: region.x + 8, y: region.y + 13,
      class: "region-label" }, region.label));
  }
  for (const link of drawing.links) {  // bowed, so that no link runs along a line
    const dx = link.x2 - link.x1, dy = link.y2 - link.y1, length = Math.hypot(dx, dy) || 1;
    const bow = Math.min(40, 0.2 * length);
    const cx = (link.x1 + link.x2) / 2 - dy / length * bow;
    const cy = (link.y1 + link.y2) / 2 + dx / length * bow;
    svg.appendChild(svgElement("path", { class: "link",
      d: "M" + link.x1 + " " + link.y1 + " Q" + cx + " " + cy + " " + link.x2 + " " + link.y2 }));
  }
  const spots = [], labels = [];
  for (const region of drawing.regions) for (const boundary of region.boundaries) {
    const points = boundary.points;
    if (boundary.closed) {
      const d = points.map((p, i) => (i ? "L" : "M") + p.x + " " + p.y).join(" ") + " Z";
      svg.appendChild(svgElement("path", { d, class: "line" }));
    }
    const once = points.filter((p) => !p.again);
    for (const p of once) {
      const spot = svgElement("g", { class: "spot lives-" + p.lives });
      spot.appendChild(svgElement("title", {}, (p.label ? p.label + ": " : "a spot with ") +
        LIVES_WORDS[p.lives]));
      spot.appendChild(svgElement("circle", { cx: p.x, cy: p.y, r: 8,
        fill: LIVES_FILL[p.lives] || "#fff" }));
      spot.appendChild(svgElement("text", { x: p.x, y: p.y + 3.5, class: "lives" },
        String(p.lives)));
      spots.push(spot);
      if (p.label) {
        const at = labelSpot(p, once);
        labels.push(svgElement("text", { x: at.x, y: at.y, class: "letter" }, p.label));
      }
    }
  }
  svg.append(...spots, ...labels);
  box.appendChild(svg);
  const caption = document.createElement("figcaption");
  caption.className = "hint";
  caption.append("Not a planar embedding: each box is a region (its notation on top) with " +
    "its boundaries inside, each drawn as the closed walk through its spots in the " +
    "notation's order. Spots by lives: ");
  for (const lives of [3, 2, 1]) {
    const key = document.createElement("span");
    key.className = "swatch lives-" + lives;
    key.style.background = LIVES_FILL[lives];
    key.textContent = lives;
    caption.append(key, " " + LIVES_WORDS[lives] + (lives > 1 ? ", " : ". "));
  }
  caption.append("A letter seen twice on one boundary is one spot; a spot written in two " +
    "regions (an uppercase letter) is drawn in each, the copies joined by a dashed line." +
    (drawing.lands.length ? " Dashed grey frames are the lands (independent parts)." : ""));
  box.appendChild(caption);
}

// The proof tree: each line a position of the proof, folded; opening it asks the API for
// that position and lists the next level (a win's winning move; a loss's every move with
// the reply that answers it), so only what is opened is fetched.
let proofRoot = null;

function proofLine(pos, play, note) {
  const li = document.createElement("li");
  const box = document.createElement("details");
  const head = document.createElement("summary");
  head.textContent = (note ? note + " " : "") + pos;
  head.dataset.proofPos = pos;
  box.appendChild(head);
  box.addEventListener("toggle", () => {
    if (box.open && !box.dataset.filled) {
      box.dataset.filled = "1";
      fillProof(box, pos, play);
    }
  });
  li.appendChild(box);
  return li;
}

async function fillProof(box, pos, play) {
  const d = await fetchView(pos, null);
  const list = document.createElement("ul");
  box.appendChild(list);
  const p = d && d.proof && d.proof[play];
  const head = box.firstChild;
  if (!p) {
    head.append(" ", badge(null, null));
    list.appendChild(Object.assign(document.createElement("li"),
      { textContent: "no value of this position in the store", className: "hint" }));
    return;
  }
  head.append(" " + p.outcome + " ", badge(p.status, p.source));
  if (p.outcome === "W") {
    if (p.move) list.appendChild(proofLine(p.move, play, "winning move →"));
    else list.appendChild(Object.assign(document.createElement("li"),
      { textContent: "no winning move among the children is known", className: "hint" }));
    return;
  }
  for (const child of d.children) {
    const reply = child["reply_" + play];
    if (reply) list.appendChild(proofLine(reply.position, play, child.position + " answered by →"));
    else list.appendChild(Object.assign(document.createElement("li"),
      { textContent: child.position + ": no stored reply", className: "hint" }));
  }
  if (!d.children.length) list.appendChild(Object.assign(document.createElement("li"),
    { textContent: "no move is left", className: "hint" }));
}

function showProofTree(play) {
  const tree = $("proof-tree");
  tree.replaceChildren();
  if (!proofRoot) return;
  tree.appendChild(proofLine(proofRoot, play, play === "misere" ? "misère:" : "normal:"));
  tree.querySelector("details").open = true;
}

$("proof-normal").addEventListener("click", () => showProofTree("normal"));
$("proof-misere").addEventListener("click", () => showProofTree("misere"));

$("ask").addEventListener("submit", (e) => {
  e.preventDefault();
  walk($("pos").value.trim(), null);
});
$("back").addEventListener("click", () => { if (trail.length > 1) history.back(); });
window.addEventListener("popstate", (e) => { showState(e.state); });

const start = new URLSearchParams(location.search).get("pos");
if (start) { $("pos").value = start; showState({ pos: start, from: null, trail: [] }); }
else showStart();

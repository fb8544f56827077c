// The sproutsdb page: ask /api/v1/position, show the values, walk to children and back.
"use strict";

const $ = (id) => document.getElementById(id);
const trail = [];            // positions walked through, oldest first (the way back)

function text(value) {
  return value === null || value === undefined ? "unknown" : String(value);
}

function cell(row, value, cls) {
  const td = row.insertCell();
  td.textContent = value;
  if (cls) td.className = cls;
  return td;
}

async function show(pos, push) {
  $("error").hidden = true;
  let reply;
  try {
    reply = await fetch("api/v1/position?pos=" + encodeURIComponent(pos));
  } catch (e) {
    return fail("the server did not answer: " + e);
  }
  const data = await reply.json();
  if (!reply.ok) return fail(data.error || reply.statusText);
  if (push && trail[trail.length - 1] !== data.position) trail.push(data.position);
  if (!push && trail.length === 0) trail.push(data.position);
  render(data);
  history.replaceState(null, "", "?pos=" + encodeURIComponent(data.position));
}

function fail(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

function rctText(d) {
  if (!d.rct) return "unknown";
  return d.rct_label + " (height " + d.rct_height + ", " + d.rct + ")";
}

function render(d) {
  $("values").hidden = false;
  $("pos").value = d.position;
  $("position").textContent = d.position;
  $("lives").textContent = d.lives;
  $("nimber").textContent = text(d.nimber);
  $("outcome").textContent = text(d.outcome);
  $("misere").textContent = text(d.misere) + (d.misere_source ? " (" + d.misere_source + ")" : "");
  $("rct").textContent = rctText(d);
  const lands = $("lands").tBodies[0];
  lands.replaceChildren();
  for (const land of d.lands) {
    const row = lands.insertRow();
    cell(row, land.land, "key");
    cell(row, land.lives);
    cell(row, text(land.nimber) + (land.nimber_source === "rct" ? " (from RCT)" : ""));
    cell(row, text(land.misere));
    cell(row, text(land.r1));
    cell(row, land.rct_label || "unknown");
  }
  drawTree(d.rct_tree);
  $("child-count").textContent = "(" + d.children.length + ")";
  $("children-note").textContent = d.children_note || "";
  const body = $("children").tBodies[0];
  body.replaceChildren();
  for (const child of d.children) {
    const row = body.insertRow();
    row.className = "child" + (child.winning_normal ? " win-normal" : "") +
      (child.winning_misere ? " win-misere" : "");
    const key = cell(row, "", "key");
    const link = document.createElement("a");
    link.textContent = child.position;
    link.dataset.pos = child.position;
    link.addEventListener("click", () => show(child.position, true));
    key.appendChild(link);
    cell(row, text(child.nimber));
    cell(row, child.winning_normal ? "★ win" : (child.winning_normal === false ? "" : "?"), "normal");
    cell(row, text(child.misere));
    cell(row, child.winning_misere ? "★ win" : (child.winning_misere === false ? "" : "?"),
      "misere-move");
  }
  $("back").disabled = trail.length < 2;
  const path = $("path");
  path.replaceChildren();
  trail.forEach((p, i) => {
    const a = document.createElement("a");
    a.textContent = (i ? "→ " : "") + p;
    a.addEventListener("click", () => { trail.length = i + 1; show(p, false); });
    path.appendChild(a);
  });
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
  svg.setAttribute("width", Math.max(1, leaves) * dx + 20);
  svg.setAttribute("height", (depth + 1) * dy + 20);
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

$("ask").addEventListener("submit", (e) => {
  e.preventDefault();
  trail.length = 0;
  show($("pos").value.trim(), true);
});
$("back").addEventListener("click", () => {
  if (trail.length < 2) return;
  trail.pop();
  show(trail[trail.length - 1], false);
});

const start = new URLSearchParams(location.search).get("pos");
if (start) { $("pos").value = start; show(start, true); }
